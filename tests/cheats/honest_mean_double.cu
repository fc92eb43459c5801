// Honest control (L1/48, mean over dim 1): one thread per output
// (neighbouring threads read neighbouring addresses), the sum in double,
// divided in double, rounded once. It must pass every protocol with no
// failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256)
mean_dim1(const float *__restrict__ x, float *__restrict__ y, long long b, long long n, long long m)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= b * m)
        return;
    long long i = t / m, k = t % m;
    const float *col = x + i * n * m + k;
    double s = 0.0;
    for (long long j = 0; j < n; j++)
        s += (double)col[j * m];
    y[t] = (float)(s / (double)n);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 3 || inputs[0].dtype != KBV_F32)
        return 1;
    long long b = inputs[0].shape[0], n = inputs[0].shape[1], m = inputs[0].shape[2];
    if (b * m == 0)
        return 0;
    mean_dim1<<<(unsigned)((b * m + 255) / 256), 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, b, n, m);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
