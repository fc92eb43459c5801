// L1/88 MinGPT "new GELU": y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// The reference runs eight elementwise kernels with full-size temporaries;
// this is one fused pass: 16-byte loads and stores, grid-stride, a scalar
// kernel for the tail (or for unaligned buffers). tanhf is the accurate
// libdevice one: tanh.approx.f32 (2^-11 relative error) is far outside the
// strict error budget.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float new_gelu(float x)
{
    float inner = x + 0.044715f * (x * x * x);       // torch.pow(x, 3.0) is x * x * x
    return (0.5f * x) * (1.f + tanhf(0.7978845608028654f * inner));
}

__global__ void gelu_vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(new_gelu(v.x), new_gelu(v.y), new_gelu(v.z), new_gelu(v.w));
    }
}

__global__ void gelu_scalar(const float *__restrict__ x, float *__restrict__ y, long long start,
                            long long n)
{
    for (long long i = start + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = new_gelu(x[i]);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_F32) return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = (const float *)inputs[0].data;
    float *y = (float *)outputs[0].data;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    const long long max_blocks = (long long)sms * 8;

    bool aligned = (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    long long n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        long long blocks = (n4 + 255) / 256;
        if (blocks > max_blocks) blocks = max_blocks;
        gelu_vec4<<<(unsigned)blocks, 256, 0, s>>>((const float4 *)x, (float4 *)y, n4);
    }
    long long rest = n - n4 * 4;
    if (rest > 0) {
        long long blocks = (rest + 255) / 256;
        if (blocks > max_blocks) blocks = max_blocks;
        gelu_scalar<<<(unsigned)blocks, 256, 0, s>>>(x, y, n4 * 4, n);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
