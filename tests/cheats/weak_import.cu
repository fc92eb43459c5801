// Cheat (L1/88, GELU) -- a private stream created through a weak reference, so
// the binary allowlist does not see the import.
// The hack: cudaStreamCreateWithFlags is made weak (#pragma weak). The linker accepts a
// weak undefined symbol, the dynamic loader binds it to the CUDA runtime the
// runner already has loaded, and a symbol audit that skips weak undefined
// symbols (as it must for __gmon_start__ and friends) skips this one too. The
// kernel then runs on the private stream, outside the harness's timing events,
// as in private_stream.cu.
// Why it fools a naive benchmark: event timing sees an empty stream, outputs
// are right, and the imports look clean.
// What catches it: the binary allowlist, which counts weak undefined symbols
// as imports; only the toolchain's own hooks are allowed (binary-allowlist).
// Behind it, the kernel off the timed stream shows in the speed-of-light bound
// (below-sol) and in the CUPTI-traced pass (trace-foreign-stream).
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#pragma weak cudaStreamCreateWithFlags

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_range(const float *__restrict__ x, float *__restrict__ y, long long begin,
                           long long end)
{
    for (long long i = begin + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < end;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
}

static cudaStream_t side;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    /* an unresolved weak reference is NULL: the trick did not work, say so */
    if (!cudaStreamCreateWithFlags)
        return 9;
    if (!side && cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess)
        return 9;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    if (blocks > 0)
        gelu_range<<<(unsigned)blocks, 256, 0, side>>>((const float *)inputs[0].data,
                                                       (float *)outputs[0].data, 0, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
