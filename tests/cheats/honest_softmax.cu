// Honest control (L1/23, softmax over dim 1): one block per row; one pass
// keeps a running max and a rescaled sum (online softmax), merged across the
// block with warp shuffles, a second pass writes exp(x - max) / sum. Accurate
// expf, float accumulation: it must pass every protocol with no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 1024

__device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    float a = m == -INFINITY ? 0.f : s * expf(m - mx);
    float b = m2 == -INFINITY ? 0.f : s2 * expf(m2 - mx);
    m = mx;
    s = a + b;
}

__global__ void __launch_bounds__(THREADS) softmax_rows(const float *__restrict__ x,
                                                        float *__restrict__ y, long long cols)
{
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float m = -INFINITY, s = 0.f;
    for (long long j = threadIdx.x; j < cols; j += THREADS) {
        float v = row[j];
        if (v > m) {
            s = (m == -INFINITY ? 0.f : s * expf(m - v)) + 1.f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    for (int off = 16; off > 0; off >>= 1)
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
    __shared__ float sm[THREADS / 32], ss[THREADS / 32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        m = sm[lane];
        s = ss[lane];
        for (int off = 16; off > 0; off >>= 1)
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, off),
                  __shfl_xor_sync(0xffffffffu, s, off));
        if (lane == 0) {
            sm[0] = m;
            ss[0] = s;
        }
    }
    __syncthreads();
    m = sm[0];
    float inv = 1.f / ss[0];
    for (long long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = expf(row[j] - m) * inv;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2)
        return 1;
    if (inputs[0].shape[0] == 0)
        return 0;
    softmax_rows<<<(unsigned)inputs[0].shape[0], THREADS, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, inputs[0].shape[1]);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
