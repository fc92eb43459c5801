/* F.normalize's second half: each element divided by its line's 2-norm
 * clamped to eps, the norm computed first by the reduction kernels
 * (cuda_ops_reduce.c). PyTorch divides by the clamped norm expanded over
 * the dim (input / denom): one true division per element, in the opmath
 * type (float for bfloat16). */
#include "cuda/cuda_device.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_offset_calc.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
normalize_divide_kernel(const T *__restrict__ x, const T *__restrict__ norm, T *__restrict__ y,
                        int64_t n, int64_t len, int64_t inner, acc_t<T> eps)
{
    using A = acc_t<T>;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t o = e / (len * inner), i = e % inner;
        const A v = A(norm[o * inner + i]);
        const A denom = v != v || v > eps ? v : eps;
        y[e] = T(A(x[e]) / denom);
    }
}

/* The same below 2^31 elements: the line index by multiply-shift division in
 * 32 bits, kOffsetUnroll elements a thread (the 64-bit divisions above ran
 * NetVLAD's normalizations at half PyTorch's speed on an H200). */
template <typename T>
__global__ void __launch_bounds__(kThreads)
normalize_divide32_kernel(const T *__restrict__ x, const T *__restrict__ norm,
                          T *__restrict__ y, unsigned n, FastDiv by_line, FastDiv by_inner,
                          acc_t<T> eps)
{
    using A = acc_t<T>;
    unrolled_each<A>(
        n,
        [&](unsigned e) {
            const unsigned o = by_line.div(e), q = by_inner.div(e), i = by_inner.mod(e, q);
            const A d = A(norm[o * by_inner.divisor + i]);
            return A(x[e]) / (d != d || d > eps ? d : eps);
        },
        [&](unsigned e, A v) { y[e] = T(v); });
}

template <typename T>
cudaError_t launch(cudaStream_t s, const void *x, const void *norm, void *y, int64_t outer,
                   int64_t len, int64_t inner, double eps)
{
    const int64_t n = outer * len * inner;
    if (n < ((int64_t)1 << 31)) {
        normalize_divide32_kernel<T><<<offset_grid(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), static_cast<const T *>(norm), static_cast<T *>(y),
            (unsigned)n, FastDiv((unsigned)(len * inner)), FastDiv((unsigned)inner),
            acc_t<T>(eps));
        return cudaGetLastError();
    }
    normalize_divide_kernel<T><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
        static_cast<const T *>(x), static_cast<const T *>(norm), static_cast<T *>(y), n, len,
        inner, acc_t<T>(eps));
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_normalize_divide(cudaStream_t s, int ft, const void *x,
                                                        const void *norm, void *y,
                                                        int64_t outer, int64_t len,
                                                        int64_t inner, double eps)
{
    if (outer * len * inner == 0)
        return cudaSuccess;
    if (ft == KIND_F64)
        return launch<double>(s, x, norm, y, outer, len, inner, eps);
    if (ft == KIND_BF16)
        return launch<bf16>(s, x, norm, y, outer, len, inner, eps);
    return launch<float>(s, x, norm, y, outer, len, inner, eps);
}
