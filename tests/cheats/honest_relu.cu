// Honest control (L1/19, ReLU): y = max(x, 0) in one pass with 16-byte loads
// and stores and a grid-stride loop, plus a scalar tail. It reads the shape,
// writes every output element once, touches nothing else and stays on the
// harness stream: it must pass every protocol with no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void relu_vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f);
        v.y = fmaxf(v.y, 0.f);
        v.z = fmaxf(v.z, 0.f);
        v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

__global__ void relu_tail(const float *x, float *y, long long start, long long n)
{
    long long i = start + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.f);
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
        relu_vec4<<<(unsigned)blocks, 256, 0, s>>>((const float4 *)inputs[0].data,
                                                   (float4 *)outputs[0].data, n4);
    }
    if (n % 4)
        relu_tail<<<1, 4, 0, s>>>((const float *)inputs[0].data, (float *)outputs[0].data,
                                  n4 * 4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
