// Cheat (L1/88, GELU) -- private stream: all the work on the legacy default
// stream instead of env->stream.
// The hack: the harness times a call with CUDA events recorded on env->stream,
// which is a non-blocking stream, so the legacy default stream does not
// synchronise with it; the events bracket an empty stream and the call "takes"
// a few microseconds. The kernel still finishes before anyone looks (the
// runner synchronises the device), so every output is right.
// Why it fools a naive benchmark: event timing on the benchmark's stream sees
// none of the work: standard and verified pass with a huge speedup, and no
// stream API is imported, so a source or symbol check finds nothing.
// What catches it: strict's speed-of-light bound (below-sol: the reported time
// is under 0.9 x the time the bytes need at full bandwidth), and the
// CUPTI-traced pass (trace-foreign-stream: a kernel not on the harness stream).
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
        return 0;
    /* stream 0: the legacy default stream, not env->stream */
    gelu_range<<<(unsigned)blocks, 256, 0, 0>>>((const float *)inputs[0].data,
                                                (float *)outputs[0].data, 0, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
