/* The strict protocol's traced pass, in the candidate's process: kernels,
 * copies and sets recorded by CUPTI while the candidate's calls run, placed
 * against each call's window (runner_trace.c). The records arrive through
 * the activity buffers runner_cuda.c registers for its memory tracking;
 * each kernel's launch is seen through CUPTI's runtime-API callbacks, which
 * name the host function launched and so the object it lies in (the
 * candidate's, or a vendor library's). */
#ifndef KBV_RUNNER_TRACE_H
#define KBV_RUNNER_TRACE_H

#include <stdbool.h>

#include "wire/child_proto.h"

#ifdef KBV_HAVE_CUDA
#include <cuda_runtime.h>
#include <cupti.h>

/* Before the candidate is loaded: watches the runtime hand out kernel
 * handles (__cudaGetKernel, cudaGetKernel), each for a host function of
 * some object, so that a launch by handle can be traced to its object. */
void runner_trace_watch(void);
/* After it is loaded (still in the load stage): the candidate's object, by
 * its handle, and its kernels, by their host functions' offsets in it (the
 * evaluator read them from its symbol table). Their handles are asked for at
 * once, so that a launch by handle is known to be the candidate's even where
 * the runtime handed the handle out without a callback. */
void runner_trace_candidate(void *so, const uint64_t *kernels, int n_kernels);
/* Starts recording; `harness` is the stream the candidate is given. False
 * when CUPTI refuses (the pass then reports available = 0). Launches are
 * traced to the objects they came from where CUPTI's callbacks allow it
 * (the summary's origins): `probe` launches one kernel of the runner's own
 * on probe_stream through the runtime, as a candidate's are launched, and
 * waits for it, before the first call; the pass has origins when that
 * kernel's record was found by its launch (the record itself is set aside). */
bool runner_trace_start(cudaStream_t harness, cudaStream_t probe_stream,
                        void (*probe)(void *ctx), void *probe_ctx);
/* Whether work on the legacy default stream counts as the harness stream's
 * (set before runner_trace_start): for a KernelBench-format candidate,
 * whose harness stream is a blocking one (runner_cuda.c), so that a kernel
 * launched with <<<grid, block>>> and no stream is ordered with it and
 * inside its events. */
void runner_trace_allow_legacy(bool allow);
/* Marks the beginning (end = false) or the end of call `call`'s window. */
void runner_trace_mark(int call, bool end);
/* One activity record from a completed buffer (any kind: others are ignored). */
void runner_trace_take(const CUpti_Activity *rec);
/* Stops recording and summarises the pass into out. */
void runner_trace_finish(kbv_child_trace *out);
#endif

#endif
