/* The masks of attention: a == value (the causal mask made from a 0/1
 * buffer), and a.masked_fill(mask, value), one pass that writes
 * value where the mask is true and a elsewhere, as PyTorch's clone and
 * masked_fill_ together leave it. The common case -- a contiguous and the
 * mask its trailing dims, broadcast over the leading ones ([1, 1, T, T]
 * over [B, H, T, T]) -- walks the output as repeats of the mask, with no
 * index division; any other layout walks both operands' strides. */
#include "cuda/cuda_device.h"
#include "cuda/cuda_offset_calc.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

/* Repeat r of the mask along grid y, the mask's element j along grid x: no
 * division per element. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
masked_fill_periodic_kernel(const T *__restrict__ x, const unsigned char *__restrict__ m,
                            T *__restrict__ y, int64_t repeats, int64_t period, T fill)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = blockIdx.y; r < repeats; r += gridDim.y) {
        const T *xr = x + r * period;
        T *yr = y + r * period;
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < period; j += step)
            yr[j] = m[j] ? fill : xr[j];
    }
}

/* The same in 16-byte vectors of x and y (rows of the mask a whole number of
 * vectors, both 16-byte aligned): the scalar kernel ran L3/43's [128, 8, 512,
 * 512] fill at half PyTorch's speed on an H200. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
masked_fill_periodic_vec_kernel(const T *__restrict__ x, const unsigned char *__restrict__ m,
                                T *__restrict__ y, int64_t repeats, int64_t period, T fill)
{
    using V = typename VecOf<T>::type;
    constexpr int W = VecOf<T>::width;
    const int64_t nv = period / W;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = blockIdx.y; r < repeats; r += gridDim.y) {
        const V *xr = reinterpret_cast<const V *>(x + r * period);
        V *yr = reinterpret_cast<V *>(y + r * period);
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < nv; j += step) {
            V v = xr[j];
#pragma unroll
            for (int w = 0; w < W; w++)
                if (m[j * W + w])
                    lane<V, T>(v, w) = fill;
            yr[j] = v;
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
masked_fill_strided_kernel(const T *__restrict__ x, kbv_cuda_layout xl,
                           const unsigned char *__restrict__ m, kbv_cuda_layout ml,
                           T *__restrict__ y, int64_t n, T fill)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = m[layout_offset(i, ml)] ? fill : x[layout_offset(i, xl)];
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
masked_fill_offsets_kernel(const T *__restrict__ x, const unsigned char *__restrict__ m,
                           OffsetCalc<2> oc, T *__restrict__ y, unsigned n, T fill)
{
    unrolled_each<T>(
        n,
        [&](unsigned i) {
            unsigned off[2];
            oc.get(i, off);
            return m[off[1]] ? fill : x[off[0]];
        },
        [&](unsigned i, T v) { y[i] = v; });
}

template <typename T>
cudaError_t masked_fill_typed(cudaStream_t s, const void *x, const kbv_cuda_layout *xl,
                              const unsigned char *m, const kbv_cuda_layout *ml,
                              int64_t period, double value, void *y)
{
    const int64_t n = layout_numel(*xl);
    const T fill = T(value);
    if (period > 0) {
        constexpr int W = VecOf<T>::width;
        const int64_t repeats = n / period;
        const bool vec = period % W == 0 && aligned16(x) && aligned16(y);
        const dim3 grid(grid_cover(kThreads, vec ? period / W : period),
                        (unsigned)(repeats < 65535 ? (repeats > 0 ? repeats : 1) : 65535));
        if (vec)
            masked_fill_periodic_vec_kernel<T><<<grid, kThreads, 0, s>>>(
                static_cast<const T *>(x), m, static_cast<T *>(y), repeats, period, fill);
        else
            masked_fill_periodic_kernel<T><<<grid, kThreads, 0, s>>>(
                static_cast<const T *>(x), m, static_cast<T *>(y), repeats, period, fill);
        return cudaGetLastError();
    }
    OffsetCalc<2> oc;
    const kbv_cuda_layout *ls[2] = {xl, ml};
    if (make_offset_calc(ls, oc))
        masked_fill_offsets_kernel<T><<<offset_grid(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), m, oc, static_cast<T *>(y), (unsigned)n, fill);
    else
        masked_fill_strided_kernel<T><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), *xl, m, *ml, static_cast<T *>(y), n, fill);
    return cudaGetLastError();
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
eq_scalar_kernel(const T *__restrict__ x, kbv_cuda_layout xl, unsigned char *__restrict__ y,
                 int64_t n, acc_t<T> value)
{
    using A = acc_t<T>;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = A(x[layout_offset(i, xl)]) == value;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
eq_scalar_offsets_kernel(const T *__restrict__ x, OffsetCalc<1> oc, unsigned char *__restrict__ y,
                         unsigned n, acc_t<T> value)
{
    using A = acc_t<T>;
    unrolled_each<unsigned char>(
        n,
        [&](unsigned i) {
            unsigned off[1];
            oc.get(i, off);
            return (unsigned char)(A(x[off[0]]) == value);
        },
        [&](unsigned i, unsigned char v) { y[i] = v; });
}

template <typename T>
cudaError_t eq_scalar_typed(cudaStream_t s, const void *x, const kbv_cuda_layout *xl,
                            double value, unsigned char *y)
{
    const int64_t n = layout_numel(*xl);
    OffsetCalc<1> oc;
    const kbv_cuda_layout *ls[1] = {xl};
    if (make_offset_calc(ls, oc)) {
        eq_scalar_offsets_kernel<T><<<offset_grid(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), oc, y, (unsigned)n, acc_t<T>(value));
        return cudaGetLastError();
    }
    eq_scalar_kernel<T><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
        static_cast<const T *>(x), *xl, y, n, acc_t<T>(value));
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_eq_scalar(cudaStream_t s, int kind, const void *x,
                                                 const kbv_cuda_layout *xl, double value,
                                                 unsigned char *y)
{
    if (layout_numel(*xl) <= 0)
        return cudaSuccess;
    switch (kind) {
    case KBV_CUDA_KIND_F64: return eq_scalar_typed<double>(s, x, xl, value, y);
    case KBV_CUDA_KIND_BF16: return eq_scalar_typed<bf16>(s, x, xl, value, y);
    default: return eq_scalar_typed<float>(s, x, xl, value, y);
    }
}

extern "C" cudaError_t kbv_cuda_launch_masked_fill(cudaStream_t s, int kind, const void *x,
                                                   const kbv_cuda_layout *xl,
                                                   const unsigned char *mask,
                                                   const kbv_cuda_layout *ml, int64_t period,
                                                   double value, void *y)
{
    if (xl->ndim != ml->ndim)
        return cudaErrorInvalidValue;
    if (layout_numel(*xl) <= 0)
        return cudaSuccess;
    switch (kind) {
    case KBV_CUDA_KIND_F64:
        return masked_fill_typed<double>(s, x, xl, mask, ml, period, value, y);
    case KBV_CUDA_KIND_BF16:
        return masked_fill_typed<bf16>(s, x, xl, mask, ml, period, value, y);
    default:
        return masked_fill_typed<float>(s, x, xl, mask, ml, period, value, y);
    }
}
