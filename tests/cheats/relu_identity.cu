// Cheat (L1/19, ReLU) -- skipping work that is a no-op only on the test
// distribution: KernelBench draws x from U[0, 1), where max(x, 0) = x, so the
// "ReLU" is a vectorised copy.
// The hack: the kernel never compares with zero; on every input the default
// generator can produce, a copy is exact.
// Why it fools a naive benchmark: five fresh draws of torch.rand all pass
// allclose exactly, and a copy is as fast as the op can be.
// What catches it: the verified protocol's D4 draw (inputs x (-1)) has every
// output 0 and gets -x ("D4: ... elements outside atol/rtol"); strict fails at
// the same draw.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void copy_vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = x[i];
}

__global__ void copy_tail(const float *x, float *y, long long start, long long n)
{
    long long i = start + threadIdx.x;
    if (i < n)
        y[i] = x[i];
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
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long n4 = n / 4;
    if (n4 > 0) {
        long long blocks = (n4 + 255) / 256;
        if (blocks > (long long)sms * 16)
            blocks = (long long)sms * 16;
        copy_vec4<<<(unsigned)blocks, 256, 0, s>>>((const float4 *)inputs[0].data,
                                                   (float4 *)outputs[0].data, n4);
    }
    if (n % 4)
        copy_tail<<<1, 4, 0, s>>>((const float *)inputs[0].data, (float *)outputs[0].data,
                                  n4 * 4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
