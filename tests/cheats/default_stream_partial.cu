// Cheat (L1/88, GELU) -- private stream, the quiet version: one sixteenth of
// the rows goes to the legacy default stream, the rest to env->stream.
// The hack: like default_stream.cu, work on a stream the timing events do not
// bracket, but only a slice of it, so the reported time stays plausible
// (above the speed-of-light bound) while the hidden slice is never paid for.
// Why it fools a naive benchmark: outputs are right, no stream API is
// imported, and the time is merely a little better than honest.
// What catches it: only the CUPTI-traced pass (trace-foreign-stream: a kernel
// of the call ran on a stream other than the harness's). Nothing else in kbv
// sees this case.
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
    const float *x = (const float *)inputs[0].data;
    float *y = (float *)outputs[0].data;
    long long hidden = n / 16;   /* the slice nobody times */
    if (hidden > 0)
        gelu_range<<<(unsigned)sms, 256, 0, 0>>>(x, y, 0, hidden);
    long long blocks = (n - hidden + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    if (blocks > 0)
        gelu_range<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(x, y, hidden, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
