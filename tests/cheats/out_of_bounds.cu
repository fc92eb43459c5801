// Cheat (L1/88, GELU) -- writing outside its buffers: the word just past the
// end of the output is used as scratch (a completion counter), on the theory
// that allocations are padded anyway.
// The hack: every block bumps y[n] when it is done. The n outputs are right;
// the word after them belongs to someone else.
// Why it fools a naive benchmark: the output compares equal, and in a caching
// allocator the word after a tensor is usually padding, or another tensor
// whose corruption shows up somewhere else later.
// What catches it: strict surrounds every arena buffer with 4 KiB guard bands
// and checks them after every call ("guard band after output 'y' overwritten").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_count(const float *__restrict__ x, float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
    if (threadIdx.x == 0)
        atomicAdd((unsigned int *)(y + n), 1u);   /* one past the end */
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    if (blocks < 1)
        blocks = 1;
    gelu_count<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
