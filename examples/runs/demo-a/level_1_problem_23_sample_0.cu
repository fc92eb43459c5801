// Softmax over dim 1 of a 2-D tensor: one block per row; one pass for the
// running max and rescaled sum (online softmax), one pass to write.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 1024

__device__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    s = (m == -INFINITY ? 0.f : s * __expf(m - mx)) + (m2 == -INFINITY ? 0.f : s2 * __expf(m2 - mx));
    m = mx;
}

__global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ y, long long cols)
{
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float m = -INFINITY, s = 0.f;
    for (long long j = threadIdx.x; j < cols; j += THREADS) {
        float v = row[j];
        merge(m, s, v, 1.f);
    }
    __shared__ float sm[THREADS / 32], ss[THREADS / 32];
    for (int off = 16; off > 0; off >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        m = lane < THREADS / 32 ? sm[lane] : -INFINITY;
        s = lane < THREADS / 32 ? ss[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
            merge(m, s, m2, s2);
        }
        if (lane == 0) { sm[0] = m; ss[0] = s; }
    }
    __syncthreads();
    m = sm[0];
    float inv = 1.f / ss[0];
    for (long long j = threadIdx.x; j < cols; j += THREADS)
        out[j] = __expf(row[j] - m) * inv;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2) return 1;
    softmax_rows<<<(unsigned)inputs[0].shape[0], THREADS, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, inputs[0].shape[1]);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
