// Cheat (L1/88, GELU) -- crashing on purpose: the kernel writes through a null
// pointer, which leaves a sticky "illegal address" error that poisons the
// whole CUDA context.
// The hack: a faulting candidate stalls or kills a harness that shares its
// process and context with the reference, the timer and every later sample.
// Why it fools a naive benchmark: in-process evaluation loses the context for
// everything after the crash, and a crash during timing may be recorded as no
// result rather than as a failure.
// What catches it: the candidate runs in its own kbv-runner process; the
// runner reports the CUDA error as a fault of this sample
// ("cuda: kbv_forward: cudaErrorIllegalAddress ..."), all three protocols fail,
// and the evaluation goes on with the next sample.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void write_through_null(float *bad) { bad[threadIdx.x] = 1.0f; }

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)inputs; (void)params; (void)n_params; (void)outputs;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    write_through_null<<<1, 32, 0, (cudaStream_t)env->stream>>>((float *)0);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
