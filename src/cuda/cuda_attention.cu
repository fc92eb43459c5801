/* The attention kernels beside cuBLAS's two matrix products: a row softmax
 * of the scaled scores (a warp per row, max then sum of exponentials then
 * the normalised write; the rows of 512 stay in L1/L2 between passes), its
 * probabilities written in place or as float16 or bfloat16 for the second
 * product, and a float16 -> float widening. */
#include <math.h>

#include <cuda_fp16.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/* p as the probabilities' storage type P (T itself: written in place). */
template <typename P> __device__ __forceinline__ P prob_as(float p);
template <> __device__ __forceinline__ __half prob_as<__half>(float p) { return __float2half_rn(p); }
template <> __device__ __forceinline__ kbv_cuda::bf16 prob_as<kbv_cuda::bf16>(float p)
{
    return kbv_cuda::bf16(p);
}

template <typename T, typename P = __half>
__global__ void __launch_bounds__(kThreads)
softmax_kernel(T *__restrict__ x, int64_t rows, int64_t cols, T scale, P *__restrict__ h)
{
    const int lid = threadIdx.x % 32;
    for (int64_t r = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; r < rows;
         r += (int64_t)gridDim.x * kWarps) {
        T *row = x + r * cols;
        T m = -INFINITY;
        for (int64_t i = lid; i < cols; i += 32) {
            T v = row[i] * scale;
            m = v > m || v != v ? v : m;
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            T m2 = __shfl_xor_sync(0xffffffffu, m, off);
            m = m2 > m || m2 != m2 ? m2 : m;
        }
        T s = 0;
        for (int64_t i = lid; i < cols; i += 32)
            s += k_exp(row[i] * scale - m);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        const T inv = T(1) / s;
        for (int64_t i = lid; i < cols; i += 32) {
            T p = k_exp(row[i] * scale - m) * inv;
            if (h)
                h[r * cols + i] = prob_as<P>((float)p);
            else
                row[i] = p;
        }
    }
}

__global__ void __launch_bounds__(kThreads)
half_to_float_kernel(const __half *__restrict__ src, float *__restrict__ dst, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * kThreads)
        dst[i] = __half2float(src[i]);
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_scaled_softmax(cudaStream_t s, int is_f64, void *x,
                                                      int64_t rows, int64_t cols, double scale,
                                                      void *half_out)
{
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    const unsigned grid = blocks_for(rows, kWarps);
    if (is_f64) {
        if (half_out)
            return cudaErrorInvalidValue;
        softmax_kernel<double><<<grid, kThreads, 0, s>>>((double *)x, rows, cols, scale,
                                                         (__half *)NULL);
    } else {
        softmax_kernel<float><<<grid, kThreads, 0, s>>>((float *)x, rows, cols, (float)scale,
                                                        (__half *)half_out);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_scaled_softmax_bf16(cudaStream_t s, float *x, int64_t rows,
                                                           int64_t cols, double scale,
                                                           void *bf16_out)
{
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    if (!bf16_out)
        return cudaErrorInvalidValue;
    softmax_kernel<float, kbv_cuda::bf16><<<blocks_for(rows, kWarps), kThreads, 0, s>>>(
        x, rows, cols, (float)scale, static_cast<kbv_cuda::bf16 *>(bf16_out));
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_half_to_float(cudaStream_t s, const void *src, float *dst,
                                                     int64_t n)
{
    if (n == 0)
        return cudaSuccess;
    half_to_float_kernel<<<blocks_for(n, kThreads), kThreads, 0, s>>>((const __half *)src, dst,
                                                                       n);
    return cudaGetLastError();
}
