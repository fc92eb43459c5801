/* The traced pass of the strict protocol (docs/THREATS.md, "CUPTI audit").
 *
 * While it runs, CUPTI records every kernel, copy and set of this process
 * with device timestamps and stream ids. Each call's window runs from just
 * before kbv_forward (the harness stream idle) to the device being idle
 * after it; both ends are read with cuptiGetTimestamp, the records' clock.
 * A record counts as inside a call when it starts and ends within that
 * call's window. The summary names the kernels that ran in each call, so
 * that the evaluator can tell the candidate's own kernels from others by
 * the symbols of the built object, which this process does not read. */
#include "runner/runner_trace.h"

#ifdef KBV_HAVE_CUDA

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRACE_MAX_RECORDS 65536

typedef struct traced {
    uint64_t start, end;
    uint32_t stream;
    int name;                  /* index in the summary's names, -1: a copy or set */
    bool policy;               /* a kernel launched with an access-policy window */
} traced;

static struct {
    pthread_mutex_t lock;
    bool on;
    uint32_t harness_stream;
    traced rec[TRACE_MAX_RECORDS];
    int n, lost;
    uint64_t window[KBV_CHILD_MAX_CALLS][2];
    int calls;
    kbv_child_trace names;     /* only n_names, names[] and names_truncated are used here */
} trace = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const CUpti_ActivityKind traced_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
#define N_KINDS (sizeof traced_kinds / sizeof traced_kinds[0])

bool runner_trace_start(cudaStream_t harness)
{
    CUcontext ctx = NULL;
    uint32_t id = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS ||
        cuptiGetStreamIdEx(ctx, (CUstream)harness, 0, &id) != CUPTI_SUCCESS)
        return false;
    pthread_mutex_lock(&trace.lock);
    trace.on = true;
    trace.harness_stream = id;
    trace.n = trace.lost = trace.calls = 0;
    memset(&trace.names, 0, sizeof trace.names);
    pthread_mutex_unlock(&trace.lock);
    /* launch attributes carry a kernel's L2 access-policy window */
    cuptiActivityEnableLaunchAttributes(1);
    for (size_t k = 0; k < N_KINDS; k++) {
        if (cuptiActivityEnable(traced_kinds[k]) != CUPTI_SUCCESS) {
            for (size_t j = 0; j < k; j++)
                cuptiActivityDisable(traced_kinds[j]);
            pthread_mutex_lock(&trace.lock);
            trace.on = false;
            pthread_mutex_unlock(&trace.lock);
            return false;
        }
    }
    return true;
}

void runner_trace_mark(int call, bool end)
{
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    pthread_mutex_lock(&trace.lock);
    if (call >= 0 && call < KBV_CHILD_MAX_CALLS) {
        trace.window[call][end ? 1 : 0] = now;
        if (end && call + 1 > trace.calls)
            trace.calls = call + 1;
    }
    pthread_mutex_unlock(&trace.lock);
}

/* Index of a kernel name in the summary, added when new; -1 when full. */
static int name_index(const char *name)
{
    kbv_child_trace *t = &trace.names;
    char cut[KBV_TRACE_NAME_MAX];
    snprintf(cut, sizeof cut, "%s", name ? name : "?");
    for (int i = 0; i < t->n_names; i++)
        if (!strcmp(t->names[i], cut))
            return i;
    if (t->n_names == KBV_TRACE_MAX_NAMES) {
        t->names_truncated = 1;
        return -1;
    }
    memcpy(t->names[t->n_names], cut, sizeof cut);
    return t->n_names++;
}

void runner_trace_take(const CUpti_Activity *rec)
{
    traced r = {0};
    r.name = -1;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        r.start = k->start, r.end = k->end, r.stream = k->streamId;
        r.policy = k->pAccessPolicyWindow && k->pAccessPolicyWindow->num_bytes > 0;
        pthread_mutex_lock(&trace.lock);
        r.name = name_index(k->name);
        if (r.name < 0)
            r.name = -2;   /* a kernel whose name did not fit */
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        r.start = m->start, r.end = m->end, r.stream = m->streamId;
        pthread_mutex_lock(&trace.lock);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        r.start = m->start, r.end = m->end, r.stream = m->streamId;
        pthread_mutex_lock(&trace.lock);
        break;
    }
    default:
        return;
    }
    if (!trace.on)
        ; /* a record from before the pass, flushed late: not the pass's */
    else if (trace.n == TRACE_MAX_RECORDS)
        trace.lost++;
    else
        trace.rec[trace.n++] = r;
    pthread_mutex_unlock(&trace.lock);
}

static int by_start(const void *a, const void *b)
{
    const traced *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void describe(char *dst, const traced *r, const char *what)
{
    if (dst[0])
        return;
    const char *name = r->name >= 0 ? trace.names.names[r->name] : r->name == -1 ? "a copy or set" : "a kernel";
    snprintf(dst, KBV_TRACE_NAME_MAX, "%.80s %s", name, what);
}

void runner_trace_finish(kbv_child_trace *out)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (size_t k = 0; k < N_KINDS; k++)
        cuptiActivityDisable(traced_kinds[k]);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&trace.lock);
    trace.on = false;
    memset(out, 0, sizeof *out);
    out->available = 1;
    out->calls = trace.calls;
    out->records = trace.n;
    out->lost = trace.lost;
    out->n_names = trace.names.n_names;
    out->names_truncated = trace.names.names_truncated;
    memcpy(out->names, trace.names.names, sizeof out->names);
    qsort(trace.rec, (size_t)trace.n, sizeof trace.rec[0], by_start);
    uint64_t busy_ns = 0;
    uint64_t covered_to[KBV_CHILD_MAX_CALLS] = {0};
    for (int i = 0; i < trace.n; i++) {
        const traced *r = &trace.rec[i];
        if (r->stream != trace.harness_stream) {
            out->foreign_stream++;
            describe(out->first_offender, r, "ran on a stream of its own");
        }
        if (r->policy)
            out->policy_window++;
        int call = -1;
        for (int c = 0; c < trace.calls; c++)
            if (r->start >= trace.window[c][0] && r->end <= trace.window[c][1])
                call = c;
        if (call < 0) {
            out->outside_call++;
            describe(out->first_offender, r, "ran outside the calls");
            continue;
        }
        if (r->name != -1)
            out->call_kernels[call]++;
        if (r->name >= 0)
            out->call_names[call] |= 1u << r->name;
        /* busy time: the union of the records' intervals (sorted by start) */
        uint64_t from = r->start > covered_to[call] ? r->start : covered_to[call];
        if (r->end > from)
            busy_ns += r->end - from;
        if (r->end > covered_to[call])
            covered_to[call] = r->end;
    }
    out->busy_ms = (double)busy_ns * 1e-6;
    pthread_mutex_unlock(&trace.lock);
}

#endif /* KBV_HAVE_CUDA */
