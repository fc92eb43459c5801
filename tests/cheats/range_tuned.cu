// Cheat (L1/88, GELU) -- tuned to the tested range: inputs are clamped to
// [-1, 3] "to keep x^3 small", which is exact on everything the published
// tests draw and wrong outside it.
// The hack: the default inputs are U[0, 1), and the paper's extra
// distributions only scale them (x3 reaches [0, 3), x(-1) reaches (-1, 0],
// x0.01 stays near 0), so a kernel may assume the range they span. Inside it
// the arithmetic here is the honest one (honest_gelu.cu), so every published
// check passes at full precision.
// Why it fools a naive benchmark: the base draws and D1-D4 never leave
// [-1, 3); standard and verified pass.
// What catches it: strict's hidden distributions, drawn with a secret seed:
// D6 (standard normal) puts 16% of x below -1, where GELU(-2) = -0.045 is
// answered with GELU(-1) = -0.159 ("D6: ... > budget").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_clamped(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(fminf(fmaxf(x[i], -1.0f), 3.0f));
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
    if (blocks > 0)
        gelu_clamped<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
            (const float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
