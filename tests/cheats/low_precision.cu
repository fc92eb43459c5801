// Cheat (L1/21, sigmoid) -- lower precision under a loose tolerance: the
// exponential is evaluated in half precision (x rounded to fp16, hexp), the
// rest in FP32.
// The hack: fp16 arithmetic has twice the throughput and an 11-bit
// significand; the result is off by up to ~5e-4, and allclose(atol = rtol =
// 1e-3) on outputs in (0, 1) admits that on every published distribution
// (x1, x3, x0.01, x(-1)).
// Why it fools a naive benchmark: the tolerance, not the reference, decides
// what "correct" means, and 1e-3 is three orders looser than FP32.
// What catches it: strict compares with a float64 oracle under an error budget
// of 8x the TF32 baseline's own error (FP32-accurate for an elementwise op):
// the relative L2 error is ~100x over it ("rel L2 error ... > budget").
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float sigmoid_half_exp(float v)
{
    float e = __half2float(hexp(__float2half_rn(-v)));
    return 1.0f / (1.0f + e);
}

__global__ void sigmoid_vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(sigmoid_half_exp(v.x), sigmoid_half_exp(v.y), sigmoid_half_exp(v.z),
                           sigmoid_half_exp(v.w));
    }
}

__global__ void sigmoid_tail(const float *x, float *y, long long start, long long n)
{
    long long i = start + threadIdx.x;
    if (i < n)
        y[i] = sigmoid_half_exp(x[i]);
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
        sigmoid_vec4<<<(unsigned)blocks, 256, 0, s>>>((const float4 *)inputs[0].data,
                                                      (float4 *)outputs[0].data, n4);
    }
    if (n % 4)
        sigmoid_tail<<<1, 4, 0, s>>>((const float *)inputs[0].data, (float *)outputs[0].data,
                                     n4 * 4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
