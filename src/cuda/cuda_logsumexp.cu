/* torch.logsumexp along the middle dim of a contiguous [outer, len, inner]
 * tensor, in one kernel: PyTorch's definition (a max pass, then
 * log(sum(exp(x - m))) + m with m = 0 where the max is infinite; a NaN
 * anywhere gives NaN) read twice from memory, where PyTorch's composite
 * (amax, subtract, exp, sum, log, add) makes four passes and an input-sized
 * temporary. exp is taken in the element type; its sum accumulates in
 * double. Along the last dim a block reduces each row with 16-byte loads;
 * along an inner dim each thread walks one column (a warp reads 32
 * consecutive elements per step). */
#include <math.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = 256;

template <typename T> __device__ __forceinline__ T k_inf();
template <> __device__ __forceinline__ float k_inf<float>() { return INFINITY; }
template <> __device__ __forceinline__ double k_inf<double>() { return (double)INFINITY; }

/* max of v over the block, NaN winning; valid in every thread. */
template <typename T> __device__ T block_max_all(T v)
{
    __shared__ T partial[32];
    __shared__ T result;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        T o = __shfl_down_sync(0xffffffffu, v, off);
        v = (o != o || o > v) ? o : v;
    }
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32;
    __syncthreads();
    if (lid == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lid < (int)(blockDim.x / 32) ? partial[lid] : -k_inf<T>();
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            T o = __shfl_down_sync(0xffffffffu, v, off);
            v = (o != o || o > v) ? o : v;
        }
        if (lid == 0)
            result = v;
    }
    __syncthreads();
    return result;
}

template <typename T> __device__ __forceinline__ T shift_of(T m)
{
    return (m == k_inf<T>() || m == -k_inf<T>()) ? T(0) : m;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
lse_row_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len)
{
    using V = typename Vec<T>::type;
    constexpr int W = Vec<T>::width;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *row = x + r * len;
        const bool vec = aligned16(row) && len % W == 0;
        const int64_t nv = vec ? len / W : 0;
        const V *rv = reinterpret_cast<const V *>(row);
        T m = -k_inf<T>();
        for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
            V a = rv[i];
#pragma unroll
            for (int w = 0; w < W; w++) {
                T v = lane<V, T>(a, w);
                m = (v != v || v > m) ? v : m;
            }
        }
        for (int64_t i = nv * W + threadIdx.x; i < len; i += kThreads) {
            T v = row[i];
            m = (v != v || v > m) ? v : m;
        }
        m = block_max_all(m);
        if (m != m) { /* a NaN: the result is NaN */
            if (threadIdx.x == 0)
                y[r] = m;
            continue;
        }
        const T s = shift_of(m);
        double acc = 0.0;
        for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
            V a = rv[i];
            T part = 0;
#pragma unroll
            for (int w = 0; w < W; w++)
                part += k_exp(lane<V, T>(a, w) - s);
            acc += (double)part;
        }
        for (int64_t i = nv * W + threadIdx.x; i < len; i += kThreads)
            acc += (double)k_exp(row[i] - s);
        acc = block_sum(acc);
        if (threadIdx.x == 0)
            y[r] = k_log((T)acc) + s;
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
lse_column_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t len,
                  int64_t inner)
{
    const int64_t total = outer * inner;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t o = t / inner, in = t % inner;
        const T *col = x + o * len * inner + in;
        T m = -k_inf<T>();
        for (int64_t k = 0; k < len && m == m; k++) {
            T v = col[k * inner];
            m = (v != v || v > m) ? v : m;
        }
        if (m != m) {
            y[t] = m;
            continue;
        }
        const T s = shift_of(m);
        double acc = 0.0;
        int64_t k = 0;
        for (; k + 8 <= len; k += 8) {
            T part = 0;
#pragma unroll
            for (int u = 0; u < 8; u++)
                part += k_exp(col[(k + u) * inner] - s);
            acc += (double)part;
        }
        for (; k < len; k++)
            acc += (double)k_exp(col[k * inner] - s);
        y[t] = k_log((T)acc) + s;
    }
}

template <typename T>
cudaError_t lse_typed(cudaStream_t s, const T *x, T *y, int64_t outer, int64_t len, int64_t inner)
{
    if (inner == 1) {
        unsigned grid = (unsigned)(outer < 0x7fffffff ? outer : 0x7fffffff);
        lse_row_kernel<T><<<grid, kThreads, 0, s>>>(x, y, outer, len);
    } else {
        lse_column_kernel<T><<<blocks_for(outer * inner, kThreads), kThreads, 0, s>>>(
            x, y, outer, len, inner);
    }
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_logsumexp(cudaStream_t s, int is_f64, const void *x,
                                                 void *y, int64_t outer, int64_t len,
                                                 int64_t inner)
{
    if (outer == 0 || inner == 0)
        return cudaSuccess;
    if (is_f64)
        return lse_typed<double>(s, (const double *)x, (double *)y, outer, len, inner);
    return lse_typed<float>(s, (const float *)x, (float *)y, outer, len, inner);
}
