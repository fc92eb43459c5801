/* The runner's CPU device: the arena is the evaluator's memfd mapped shared,
 * scratch is aligned host memory, time is CLOCK_MONOTONIC. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runner/runner.h"

typedef struct cpu_state {
    unsigned char *flush_buf;
    size_t flush_bytes;
    struct timespec start;
} cpu_state;

static kbv_child_fault cpu_init(runner *r, char *reason)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(reason, RUNNER_REASON_CAP, "runner: out of memory");
        return KBV_FAULT_HARNESS;
    }
    r->dev_state = s;
    size_t bytes = (size_t)r->setup.arena_bytes;
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, KBV_PROTO_FD_ARENA, 0);
    if (base == MAP_FAILED) {
        snprintf(reason, RUNNER_REASON_CAP, "runner: cannot map the arena (%zu bytes): %s", bytes,
                 strerror(errno));
        return KBV_FAULT_HARNESS;
    }
    close(KBV_PROTO_FD_ARENA);  /* the mapping stays; the candidate gets no handle */
    r->base = base;
    if (r->setup.flush_bytes > 0) {
        s->flush_bytes = (size_t)r->setup.flush_bytes;
        s->flush_buf = malloc(s->flush_bytes);
        if (!s->flush_buf) {
            snprintf(reason, RUNNER_REASON_CAP, "runner: no memory for a %zu-byte flush buffer",
                     s->flush_bytes);
            return KBV_FAULT_HARNESS;
        }
    }
    return KBV_FAULT_NONE;
}

static void cpu_track_begin(runner *r)
{
    (void)r;  /* host allocations other than env->alloc are not counted */
}

/* A C candidate links no vendor library (the compile links them for .cu
 * sources alone), so there is nothing to make ready. */
static kbv_child_fault cpu_loaded(runner *r, char *reason)
{
    if (!r->setup.vendor_libs)
        return KBV_FAULT_NONE;
    snprintf(reason, RUNNER_REASON_CAP, "vendor libraries on the CPU backend");
    return KBV_FAULT_HARNESS;
}

static void *cpu_alloc(runner *r, size_t bytes)
{
    (void)r;
    /* aligned_alloc wants a multiple of the alignment */
    return aligned_alloc(256, (bytes + 255) / 256 * 256);
}

static void cpu_release(runner *r, void *ptr)
{
    (void)r;
    free(ptr);
}

static kbv_child_fault cpu_flush(runner *r, unsigned round, char *reason)
{
    (void)reason;
    cpu_state *s = r->dev_state;
    if (s->flush_buf)
        memset(s->flush_buf, (int)(round & 0xff), s->flush_bytes);
    return KBV_FAULT_NONE;
}

static void cpu_timer_start(runner *r)
{
    cpu_state *s = r->dev_state;
    clock_gettime(CLOCK_MONOTONIC, &s->start);
}

static kbv_child_fault cpu_timer_stop(runner *r, double *ms, const char *what, char *reason)
{
    (void)what;
    (void)reason;
    cpu_state *s = r->dev_state;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    *ms = (double)(end.tv_sec - s->start.tv_sec) * 1e3 +
          (double)(end.tv_nsec - s->start.tv_nsec) * 1e-6;
    return KBV_FAULT_NONE;
}

static kbv_child_fault cpu_sync_check(runner *r, const char *what, char *reason)
{
    (void)r;
    (void)what;
    (void)reason;
    return KBV_FAULT_NONE;
}

/* No cache partitions, no device to keep busy, no activity tracing on the CPU. */
static bool cpu_l2_check(runner *r) { (void)r; return false; }
static void cpu_noise(runner *r, int us) { (void)r; (void)us; }
static bool cpu_trace_begin(runner *r) { (void)r; return false; }
static void cpu_trace_mark(runner *r, int call, bool end) { (void)r; (void)call; (void)end; }
static void cpu_trace_end(runner *r, kbv_child_trace *out) { (void)r; (void)out; }

static size_t cpu_peak_bytes(runner *r)
{
    return r->scratch_peak;
}

static void cpu_fini(runner *r)
{
    cpu_state *s = r->dev_state;
    if (r->base)
        munmap(r->base, (size_t)r->setup.arena_bytes);
    r->base = NULL;
    if (s)
        free(s->flush_buf);
    free(s);
    r->dev_state = NULL;
}

const runner_device runner_cpu = {
    .init = cpu_init,
    .track_begin = cpu_track_begin,
    .loaded = cpu_loaded,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .flush = cpu_flush,
    .timer_start = cpu_timer_start,
    .timer_stop = cpu_timer_stop,
    .sync_check = cpu_sync_check,
    .peak_bytes = cpu_peak_bytes,
    .l2_check = cpu_l2_check,
    .noise = cpu_noise,
    .trace_begin = cpu_trace_begin,
    .trace_mark = cpu_trace_mark,
    .trace_end = cpu_trace_end,
    .fini = cpu_fini,
};
