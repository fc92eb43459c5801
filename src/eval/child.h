/* The candidate process, seen from the evaluator.
 *
 * kbv_child_start starts kbv-runner confined (sandbox/spawn.h: a jail that
 * shows it only the system's libraries, the devices and a private directory
 * holding a copy of the candidate; a fresh address space: nothing of the
 * evaluator's memory, no expected outputs, no seeds), hands it the shared
 * arena and the tensor layout, and has it load the candidate. What it prints
 * is captured (bounded), never shown on the terminal. Every
 * later request is one message on a socketpair with a deadline; on timeout
 * the runner's whole process group is killed. Whatever the candidate does --
 * crash, hang, return non-zero, leave a sticky CUDA error -- the request
 * fails with a kbv_child_fault and a readable reason, and the evaluator goes
 * on with the next sample. */
#ifndef KBV_CHILD_H
#define KBV_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "exec/backend.h"
#include "wire/child_proto.h"

#define KBV_CHILD_OUTPUT_CAP (16 * 1024)  /* the runner's stdout and stderr kept */

/* "load", "returned", "crash", ... (the faults: wire/child_proto.h) */
const char *kbv_child_fault_name(kbv_child_fault f);

/* kbv-runner: $KBV_RUNNER, else beside the running program (a build tree), else
 * in ../libexec/kbv (an installation): kbv_runner_locate. Found once. */
const char *kbv_runner_path(void);

/* Where the tensors lie: `data` of each tensor holds its byte offset in the
 * arena (cast to a pointer); names are copied into the runner. The arrays
 * are the layout owner's. */
typedef struct kbv_child_layout {
    int n_inputs, n_params, n_outputs;
    int n_sets;                 /* input sets, 1..KBV_CHILD_MAX_SETS */
    kbv_tensor *inputs;         /* n_sets * n_inputs, set-major */
    kbv_tensor *params;         /* n_params */
    kbv_tensor *outputs;        /* n_outputs */
} kbv_child_layout;

typedef struct kbv_child kbv_child;

typedef struct kbv_child_spec {
    const char *runner;        /* path of kbv-runner */
    const char *candidate;     /* path of the compiled .so */
    int device;                /* CUDA ordinal, -1 for the CPU backend */
    const kbv_arena *arena;
    const kbv_child_layout *layout;
    double start_timeout_s;    /* process start, CUDA init and load */
    double call_timeout_s;     /* each request */
    size_t flush_bytes;        /* cache-flush buffer the runner allocates (>= 2x L2 / LLC) */
    unsigned vendor_libs;      /* vendor libraries (core/vendor_libs.h) the run allows and the
                                  candidate links: loaded and initialised before the sandbox
                                  closes every path; 0: none */
    const uint64_t *kernels;   /* the candidate's kernels, by their host functions' offsets in
                                  its object (eval/symbols.h), so that the traced pass knows
                                  its launches; at most KBV_PROTO_MAX_KERNELS are sent */
    int n_kernels;
    const char *python_init;   /* a KernelBench-format candidate: Python source setting
                                  init_inputs from kbv's definition (kbv_render_init_inputs);
                                  NULL for a C candidate */
    kbv_child *ahead;          /* a runner kbv_child_start_ahead started for this device, or
                                  NULL; always taken: it becomes this child, or is stopped
                                  when it cannot serve (gone, another device, another kind
                                  of candidate) */
} kbv_child_spec;

/* Result of one request. */
typedef struct kbv_child_result {
    kbv_child_fault fault;
    char reason[512];          /* readable, for the results; "" when no fault */
    int n_times;
    double times_ms[KBV_CHILD_MAX_CALLS];  /* per call, on the runner's clock */
    double wall_ms;            /* the whole request on the evaluator's clock */
    int l2_persisting;         /* calls after which a persisting-L2 setting was found (and reset) */
    kbv_child_trace trace;     /* kbv_child_trace_calls only */
    kbv_child_python python;   /* a KernelBench-format candidate, as of this request */
} kbv_child_result;

_Static_assert(KBV_PROTO_REASON_MAX == sizeof(((kbv_child_result *)0)->reason),
               "the runner's reasons fit kbv_child_result");

/* Starts a runner ahead of its candidate: the process, its sandbox and
 * private directory, on a GPU (device >= 0) its CUDA context and, for a
 * KernelBench-format candidate (python), the interpreter with torch
 * imported, made while the evaluator does something else. It knows nothing
 * of any sample until kbv_child_start takes it (spec->ahead) and sends the
 * setup, the arena and the candidate; until then it only waits. Each serves
 * one candidate, as a fresh one does, and only a candidate of the kind it
 * was started for (a ".py" file or not): another is given a fresh runner.
 * runner NULL: kbv_runner_path(). Stop an unused one with kbv_child_stop. */
kbv_status kbv_child_start_ahead(const char *runner, int device, bool python,
                                 kbv_child **out);

/* Starts the runner (or takes spec->ahead) and loads the candidate. A candidate that cannot load is
 * not a harness error: it returns KBV_OK with *child set and res->fault. */
kbv_status kbv_child_start(const kbv_child_spec *spec, kbv_child **child, kbv_child_result *res);

/* kbv_prepare on the current params (a no-op when the candidate has none). */
kbv_status kbv_child_prepare(kbv_child *c, kbv_child_result *res);

/* n_calls (<= KBV_CHILD_MAX_CALLS) calls of kbv_forward on input set `set`,
 * each synchronised and timed; `flush` evicts the cache before each. */
kbv_status kbv_child_call(kbv_child *c, int set, int n_calls, bool flush, kbv_child_result *res);

/* Like kbv_child_call without a cache flush, with the runner keeping the GPU
 * busy beside each call (copies on a stream of its own for about noise_us)
 * so that a race in the candidate meets a scheduling it was not tuned on. */
kbv_status kbv_child_call_noisy(kbv_child *c, int set, int n_calls, int noise_us,
                                kbv_child_result *res);
/* n_calls untimed calls under CUPTI activity tracing; res->trace says what ran
 * where (res->trace.available is 0 where tracing is not possible). */
kbv_status kbv_child_trace_calls(kbv_child *c, int set, int n_calls, kbv_child_result *res);
/* Peak device bytes of the candidate since load: the harness buffers it was
 * given (inputs of one set, params, outputs), env->alloc scratch, and its own
 * cudaMalloc/cudaMallocAsync (CUPTI memory records). */
kbv_status kbv_child_memory(kbv_child *c, size_t *peak_bytes, kbv_child_result *res);

/* What the runner and the candidate printed so far (stdout and stderr, at
 * most KBV_CHILD_OUTPUT_CAP bytes, the head kept; "" when nothing), and how
 * many bytes beyond that were dropped. */
const char *kbv_child_output(kbv_child *c, size_t *dropped);

/* The sum of every call's time the runner reported since start (its clock:
 * CUDA events around each kbv_forward, CLOCK_MONOTONIC on the CPU): the
 * device time of the candidate's calls. */
double kbv_child_device_ms(const kbv_child *c);

/* kbv_finish, exit, reap (kill the process group if it does not exit). */
void kbv_child_stop(kbv_child *c);

#endif
