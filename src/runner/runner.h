/* kbv-runner internals: the state of the candidate process and the device
 * it runs on (runner_cpu.c, runner_cuda.c). runner_main.c speaks the
 * protocol of wire/child_proto.h and calls the candidate; the device table
 * supplies memory, the cache flush, the timed window and error checks. */
#ifndef KBV_RUNNER_H
#define KBV_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "wire/child_proto.h"
#include "kbv/candidate.h"

#define RUNNER_REASON_CAP KBV_PROTO_REASON_MAX

typedef struct runner runner;

typedef struct runner_device {
    /* Maps the arena into r->base and creates what timing needs. */
    kbv_child_fault (*init)(runner *r, char *reason);
    /* Begins watching the candidate's own allocations and launches (before dlopen). */
    void (*track_begin)(runner *r);
    /* After the candidate is loaded, before the run stage: the vendor
     * libraries of r->setup.vendor_libs made ready (runner_vendor.h). */
    kbv_child_fault (*loaded)(runner *r, char *reason);
    /* Scratch memory for env->alloc, 256-byte aligned; NULL on failure. */
    void *(*alloc)(runner *r, size_t bytes);
    void (*release)(runner *r, void *ptr);
    /* Evicts the cache; `round` varies what is written. */
    kbv_child_fault (*flush)(runner *r, unsigned round, char *reason);
    void (*timer_start)(runner *r);
    /* Ends the timed window: waits for the work, checks for device errors. */
    kbv_child_fault (*timer_stop)(runner *r, double *ms, const char *what, char *reason);
    /* Waits for the work and checks for device errors (after kbv_prepare). */
    kbv_child_fault (*sync_check)(runner *r, const char *what, char *reason);
    /* Peak bytes of scratch plus the candidate's own allocations. */
    size_t (*peak_bytes)(runner *r);
    /* After a call: whether it left persisting-L2 state behind (then undone). */
    bool (*l2_check)(runner *r);
    /* Keeps the device busy beside the next call for about us microseconds. */
    void (*noise)(runner *r, int us);
    /* The traced pass: begin (false: no tracing here), each call's window, end. */
    bool (*trace_begin)(runner *r);
    void (*trace_mark)(runner *r, int call, bool end);
    void (*trace_end)(runner *r, kbv_child_trace *out);
    void (*fini)(runner *r);
    /* A runner started ahead of its candidate: brings the device up before
     * the setup arrives (NULL: nothing to bring up). Failures are left for
     * init to find and report. */
    void (*warm)(int device);
} runner_device;

extern const runner_device runner_cpu;
extern const runner_device runner_cuda;

typedef int (*kbv_prepare_fn)(const kbv_env *, const kbv_tensor *, int, void **);
typedef int (*kbv_forward_fn)(const kbv_env *, void *, const kbv_tensor *, int,
                              const kbv_tensor *, int, kbv_tensor *, int);
typedef void (*kbv_finish_fn)(const kbv_env *, void *);

typedef struct scratch_block {
    void *ptr;
    size_t bytes;      /* as counted: rounded up to 512 */
} scratch_block;

struct runner {
    kbv_proto_setup setup;      /* as received */
    kbv_proto_tensor *table;    /* the tensor table as received; tensor names point into it */
    const runner_device *dev;
    void *dev_state;
    unsigned char *base;        /* the arena in this process */
    kbv_env env;
    kbv_tensor *inputs;         /* n_sets * n_inputs, set-major */
    kbv_tensor *params;         /* n_params */
    kbv_tensor *outputs;        /* n_outputs */
    size_t harness_bytes;       /* one input set + params + outputs, each rounded to 512 */

    /* env->alloc scratch: live blocks and the peak of their sum */
    scratch_block *scratch;
    int n_scratch, cap_scratch;
    size_t scratch_live, scratch_peak;

    void *so;
    kbv_prepare_fn prepare;
    kbv_forward_fn forward;
    kbv_finish_fn finish;
    void *state;
    bool prepared;
    bool warm_python;           /* started ahead for a KernelBench-format candidate */
};

/* Allocator accounting rounds like PyTorch's caching allocator. */
static inline size_t runner_round512(size_t bytes)
{
    return (bytes + 511) / 512 * 512;
}

#endif
