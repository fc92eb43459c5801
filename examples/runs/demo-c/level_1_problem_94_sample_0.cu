// L1/94 MSELoss: mean((predictions - targets)^2) over all elements -> a scalar.
// The reference runs three kernels with two full-size temporaries; this reads
// each input once and writes nothing but the result:
//   1. a fixed grid of at most 1024 blocks streams both inputs with 16-byte
//      loads, two float4 pairs per thread per trip (more loads in flight);
//      the four squares of a float4 are added in float and that short sum
//      into a double per thread (a float accumulator over millions of terms
//      misses the strict budget); warp shuffles then shared memory reduce the
//      block to one double partial;
//   2. one block adds the partials in a fixed order and divides by n.
// No atomics: the result is the same bits every call. The partials buffer
// (8 KiB) is made once in kbv_prepare and freed in kbv_finish.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256
#define MAX_BLOCKS 1024

template <int NT> __device__ __forceinline__ double block_sum(double v)
{
    __shared__ double warp_part[NT / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) warp_part[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < NT / 32 ? warp_part[lane] : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    return v;                                // the block's sum, in thread 0
}

__device__ __forceinline__ float sq_sum4(float4 a, float4 b)
{
    float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, dw = a.w - b.w;
    return (dx * dx + dy * dy) + (dz * dz + dw * dw);
}

__global__ void __launch_bounds__(THREADS)
mse_partial(const float *__restrict__ p, const float *__restrict__ t, long long n4, long long n,
            double *__restrict__ partial)
{
    const float4 *p4 = reinterpret_cast<const float4 *>(p), *t4 = reinterpret_cast<const float4 *>(t);
    const long long stride = (long long)gridDim.x * THREADS;
    long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    double acc = 0.0;
    for (; i + stride < n4; i += 2 * stride) {
        float4 a0 = __ldg(p4 + i), b0 = __ldg(t4 + i);
        float4 a1 = __ldg(p4 + i + stride), b1 = __ldg(t4 + i + stride);
        acc += (double)sq_sum4(a0, b0);
        acc += (double)sq_sum4(a1, b1);
    }
    if (i < n4) acc += (double)sq_sum4(__ldg(p4 + i), __ldg(t4 + i));
    // the elements after the last float4 (all of them when the buffers are unaligned)
    for (long long j = n4 * 4 + (long long)blockIdx.x * THREADS + threadIdx.x; j < n; j += stride) {
        float d = p[j] - t[j];
        acc += (double)(d * d);
    }
    acc = block_sum<THREADS>(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(MAX_BLOCKS)
mse_final(const double *__restrict__ partial, int parts, long long n, float *__restrict__ y)
{
    double v = threadIdx.x < parts ? partial[threadIdx.x] : 0.0;
    v = block_sum<MAX_BLOCKS>(v);
    if (threadIdx.x == 0) *y = (float)(v / (double)n);
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params, void **state)
{
    (void)params; (void)n_params;
    *state = env->alloc(env, MAX_BLOCKS * sizeof(double));
    return *state ? 0 : 3;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state) { env->release(env, state); }

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || !state || inputs[0].dtype != KBV_F32 ||
        inputs[1].dtype != KBV_F32 || inputs[0].ndim != inputs[1].ndim)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) {
        if (inputs[0].shape[d] != inputs[1].shape[d]) return 1;   // no broadcasting here
        n *= inputs[0].shape[d];
    }
    const float *p = (const float *)inputs[0].data, *t = (const float *)inputs[1].data;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long n4 = (((uintptr_t)p | (uintptr_t)t) & 15) == 0 ? n / 4 : 0;
    long long blocks = (n4 > 0 ? n4 : n) / (2 * THREADS) + 1;
    if (blocks > (long long)sms * 8) blocks = (long long)sms * 8;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    double *partial = (double *)state;
    mse_partial<<<(unsigned)blocks, THREADS, 0, s>>>(p, t, n4, n, partial);
    mse_final<<<1, MAX_BLOCKS, 0, s>>>(partial, (int)blocks, n, (float *)outputs[0].data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
