/* The strict protocol's traced pass, in the candidate's process: kernels,
 * copies and sets recorded by CUPTI while the candidate's calls run, placed
 * against each call's window (runner_trace.c). The records arrive through
 * the activity buffers runner_cuda.c registers for its memory tracking. */
#ifndef KBV_RUNNER_TRACE_H
#define KBV_RUNNER_TRACE_H

#include <stdbool.h>

#include "wire/child_proto.h"

#ifdef KBV_HAVE_CUDA
#include <cuda_runtime.h>
#include <cupti.h>

/* Starts recording; `harness` is the stream the candidate is given. False
 * when CUPTI refuses (the pass then reports available = 0). */
bool runner_trace_start(cudaStream_t harness);
/* Marks the beginning (end = false) or the end of call `call`'s window. */
void runner_trace_mark(int call, bool end);
/* One activity record from a completed buffer (any kind: others are ignored). */
void runner_trace_take(const CUpti_Activity *rec);
/* Stops recording and summarises the pass into out. */
void runner_trace_finish(kbv_child_trace *out);
#endif

#endif
