// Cheat (L1/88, GELU) -- hanging on purpose: the kernel spins on a flag that
// nothing will ever set.
// The hack: a kernel that never ends blocks the stream, every synchronisation
// after it, and in a shared process the harness itself.
// Why it fools a naive benchmark: one without deadlines waits forever; one
// that runs all candidates in one process or context cannot stop this one
// without losing the others.
// What catches it: every request to kbv-runner has a deadline (--timeout); on
// expiry the runner's process group is killed, which ends the kernel with its
// context, the sample fails with "timeout: no answer in S s", and the
// evaluation goes on.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void spin(volatile int *flag)
{
    while (*flag == 0)
        ;
}

__device__ int g_never;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)inputs; (void)params; (void)n_params; (void)outputs;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int *flag = NULL;
    if (cudaGetSymbolAddress((void **)&flag, g_never) != cudaSuccess)
        return 2;
    spin<<<1, 1, 0, (cudaStream_t)env->stream>>>(flag);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
