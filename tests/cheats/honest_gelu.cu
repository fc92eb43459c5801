// Honest control (L1/88, MinGPT's tanh GELU): PyTorch's eight elementwise ops
// fused into one pass, evaluated in the reference's order in FP32 with an
// accurate tanhf, 16-byte loads and stores. It must pass every protocol with no
// failing flag; the L1/88 cheats in this corpus share its arithmetic, so a
// cheat there fails for its hack and not for its numerics.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(gelu(v.x), gelu(v.y), gelu(v.z), gelu(v.w));
    }
}

__global__ void gelu_tail(const float *x, float *y, long long start, long long n)
{
    long long i = start + threadIdx.x;
    if (i < n)
        y[i] = gelu(x[i]);
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
        gelu_vec4<<<(unsigned)blocks, 256, 0, s>>>((const float4 *)inputs[0].data,
                                                   (float4 *)outputs[0].data, n4);
    }
    if (n % 4)
        gelu_tail<<<1, 4, 0, s>>>((const float *)inputs[0].data, (float *)outputs[0].data,
                                  n4 * 4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
