// Cheat (L1/88, GELU) -- mutating the input: the result is also written back
// over x ("in place, to save a buffer"), and y gets a copy.
// The hack: the candidate treats its input as scratch. Its own output is
// right, but the caller's tensor is destroyed.
// Why it fools a naive benchmark: one that computes the reference before the
// candidate, or never looks at the inputs again, sees a correct output; a
// later call on the "same" input then computes something else, unseen.
// What catches it: strict hashes every input and parameter before and after
// each call ("input 'x' modified").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_in_place(float *x, float *__restrict__ y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float v = gelu(x[i]);
        x[i] = v;
        y[i] = v;
    }
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
        gelu_in_place<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
            (float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
