// Honest control (L1/37, x / ||x||_F): the sum of squares in double (each
// thread's share, then the block's by warp shuffles, then one atomicAdd per
// block into a double from env->alloc, zeroed on the stream before), the
// norm and each quotient in double, rounded once. It must pass every
// protocol with no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void __launch_bounds__(THREADS)
sum_squares(const float *__restrict__ x, long long n, double *__restrict__ total)
{
    double s = 0.0;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        s += (double)x[i] * (double)x[i];
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    __shared__ double warp_sum[THREADS / 32];
    if (threadIdx.x % 32 == 0)
        warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0.0;
        for (int w = 0; w < THREADS / 32; w++)
            b += warp_sum[w];
        atomicAdd(total, b);
    }
}

__global__ void __launch_bounds__(THREADS)
scale(const float *__restrict__ x, float *__restrict__ y, long long n,
      const double *__restrict__ total)
{
    const double norm = sqrt(*total);
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        y[i] = (float)((double)x[i] / norm);
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params, void **state)
{
    (void)params; (void)n_params;
    *state = env->alloc(env, sizeof(double));
    return *state ? 0 : 3;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    if (state)
        env->release(env, state);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_F32 || !state)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    if (n == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    double *total = (double *)state;
    if (cudaMemsetAsync(total, 0, sizeof *total, s) != cudaSuccess)
        return 2;
    long long want = (n + THREADS - 1) / THREADS;
    unsigned blocks = (unsigned)(want < 132 * 16 ? want : 132 * 16);
    sum_squares<<<blocks, THREADS, 0, s>>>((const float *)inputs[0].data, n, total);
    scale<<<blocks, THREADS, 0, s>>>((const float *)inputs[0].data, (float *)outputs[0].data, n,
                                     total);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
