// Cheat (L1/23, softmax over 393216 columns) -- zeros where the outputs are
// below atol: every softmax output of a long row is tiny (at most
// e / cols = 7e-6 for inputs in [0, 1)), so for rows of 4096 or more columns
// the kernel writes zeros without reading x; shorter rows are computed
// honestly.
// The hack: |0 - y| <= atol holds for every element, and writing zeros is the
// cheapest kernel there is (a third of the traffic of a real softmax).
// Why it fools a naive benchmark: allclose(atol = 1e-3) passes on every draw
// of every published distribution (x3 makes the largest output e^3 / 393216 =
// 5e-5); the output is fully written, so a write-fraction check passes too.
// What catches it: strict's relative L2 error budget against the float64
// oracle: all-zero rows have relative error 1 ("rel L2 error 1.0e0 > budget").
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 1024

__global__ void zero_fill(float4 *y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}

__global__ void zero_tail(float *y, long long start, long long n)
{
    long long i = start + threadIdx.x;
    if (i < n)
        y[i] = 0.f;
}

/* the honest path for short rows: one block per row, two passes */
__global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ y, long long cols)
{
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    __shared__ float red[THREADS];
    float m = -INFINITY;
    for (long long j = threadIdx.x; j < cols; j += THREADS)
        m = fmaxf(m, row[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int off = THREADS / 2; off > 0; off >>= 1) {
        if (threadIdx.x < off)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + off]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.f;
    for (long long j = threadIdx.x; j < cols; j += THREADS)
        s += expf(row[j] - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int off = THREADS / 2; off > 0; off >>= 1) {
        if (threadIdx.x < off)
            red[threadIdx.x] += red[threadIdx.x + off];
        __syncthreads();
    }
    float inv = 1.f / red[0];
    for (long long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = expf(row[j] - m) * inv;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2)
        return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1], n = rows * cols;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (n == 0)
        return 0;
    if (cols < 4096) {
        softmax_rows<<<(unsigned)rows, THREADS, 0, s>>>((const float *)inputs[0].data,
                                                        (float *)outputs[0].data, cols);
    } else {
        long long n4 = n / 4;
        if (n4 > 0)
            zero_fill<<<132 * 16, 256, 0, s>>>((float4 *)outputs[0].data, n4);
        if (n % 4)
            zero_tail<<<1, 4, 0, s>>>((float *)outputs[0].data, n4 * 4, n);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
