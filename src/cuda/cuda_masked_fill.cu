/* a.masked_fill(mask, value) (attention's causal mask): one pass that writes
 * value where the mask is true and a elsewhere, as PyTorch's clone and
 * masked_fill_ together leave it. The common case -- a contiguous and the
 * mask its trailing dims, broadcast over the leading ones ([1, 1, T, T]
 * over [B, H, T, T]) -- reads the mask at i % period; any other layout
 * walks both operands' strides. */
#include "cuda/cuda_device.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
masked_fill_periodic_kernel(const T *__restrict__ x, const unsigned char *__restrict__ m,
                            T *__restrict__ y, int64_t n, int64_t period, T fill)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = m[i % period] ? fill : x[i];
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
cudaError_t masked_fill_typed(cudaStream_t s, const void *x, const kbv_cuda_layout *xl,
                              const unsigned char *m, const kbv_cuda_layout *ml,
                              int64_t period, double value, void *y)
{
    const int64_t n = layout_numel(*xl);
    const T fill = T(value);
    if (period > 0)
        masked_fill_periodic_kernel<T><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), m, static_cast<T *>(y), n, period, fill);
    else
        masked_fill_strided_kernel<T><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
            static_cast<const T *>(x), *xl, m, *ml, static_cast<T *>(y), n, fill);
    return cudaGetLastError();
}

} /* namespace */

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
