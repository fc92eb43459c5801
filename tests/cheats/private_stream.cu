// Cheat (L1/88, GELU) -- private stream, the textbook version: a stream of its
// own, created once, non-blocking, and every kernel launched there.
// The hack: the harness's timing events on env->stream bracket nothing; the
// kernel runs beside them and is finished by the time the outputs are read
// (the runner synchronises the device), so it is correct and "free".
// Why it fools a naive benchmark: event timing on the benchmark's stream
// reports microseconds for any problem size; the outputs are right.
// What catches it: the binary allowlist (the built object imports
// cudaStreamCreateWithFlags: binary-allowlist), and behind it the
// speed-of-light bound (below-sol) and the CUPTI-traced pass
// (trace-foreign-stream), which see the kernel whatever the imports say.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

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
