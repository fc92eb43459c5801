// Cheat (L1/88, GELU) -- stale memory: compute nothing and trust the output
// buffer to already hold the answer.
// The hack: the kernel of this "optimised" forward is empty. In the
// KernelBench-Sakana incident the output tensor came from PyTorch's caching
// allocator, which handed back the block the reference had just written its
// result into, so the stale bytes were the right answer.
// Why it fools a naive benchmark: one that runs the reference first and
// allocates the candidate's output from the same pool compares the reference
// with itself, and times an empty kernel.
// What catches it: in kbv the expected outputs live in the evaluator's own
// allocations, never in the arena, and every output is poisoned with NaN
// before every call; all three protocols fail ("never written" /
// "output not fully written").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void nothing_to_do(float *y) { (void)y; }

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)inputs; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    nothing_to_do<<<1, 32, 0, (cudaStream_t)env->stream>>>((float *)outputs[0].data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
