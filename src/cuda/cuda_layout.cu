/* Layout ops: torch.diag (embed a vector / extract a diagonal),
 * torch.triu / torch.tril, F.pad / torch.roll (a shifted copy) and a[b]
 * (rows gathered by an int64 index). Each output element is written once with 16-byte
 * stores along rows (coalesced across a warp); triu/tril read the input only
 * where the mask keeps it, so the zeroed triangle costs no reads. */
#include <cstring>
#include <type_traits>

#include "cuda/cuda_device.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 128; /* one vector per thread, grids cover the work */

template <typename T, int W>
__global__ void __launch_bounds__(kThreads)
diag_embed_kernel(const T *__restrict__ x, int64_t x_stride, int64_t k, T *__restrict__ y,
                  int64_t m)
{
    using V = typename VecOf<T>::type;
    const int64_t nvec = m * m / W;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += step) {
        const int64_t first = v * W;
        const int64_t r = first / m, c0 = first - r * m;
        if constexpr (W == 1) {
            T val = T(0);
            if (c0 - r == k)
                val = x[(k >= 0 ? r : c0) * x_stride];
            y[first] = val;
        } else {
            /* rows hold whole vectors here (m % W == 0) */
            V out;
#pragma unroll
            for (int w = 0; w < W; w++) {
                const int64_t c = c0 + w;
                lane<V, T>(out, w) = c - r == k ? x[(k >= 0 ? r : c) * x_stride] : T(0);
            }
            reinterpret_cast<V *>(y)[v] = out;
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
diag_extract_kernel(const T *__restrict__ x, int64_t rs, int64_t cs, int64_t r0, int64_t c0,
                    int64_t len, T *__restrict__ y)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += step)
        y[i] = x[(i + r0) * rs + (i + c0) * cs];
}

template <bool UPPER>
__device__ __forceinline__ bool tri_keep(int64_t r, int64_t c, int64_t k)
{
    return UPPER ? c - r >= k : c - r <= k;
}

template <typename T, bool UPPER, int W>
__global__ void __launch_bounds__(kThreads)
tri_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t batch, int64_t rows, int64_t cols,
           int64_t k)
{
    using V = typename std::conditional<W == 1, T, typename VecOf<T>::type>::type;
    const int64_t per_row = cols / W;
    const int64_t nvec = batch * rows * per_row;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const V *__restrict__ xv = reinterpret_cast<const V *>(x);
    V *__restrict__ yv = reinterpret_cast<V *>(y);
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += step) {
        const int64_t grow = v / per_row;
        const int64_t c0 = (v - grow * per_row) * W;
        const int64_t r = grow % rows;
        const bool first = tri_keep<UPPER>(r, c0, k), last = tri_keep<UPPER>(r, c0 + W - 1, k);
        V out;
        if (!first && !last) { /* the mask is monotone along a row: all zero */
#pragma unroll
            for (int w = 0; w < W; w++)
                lane<V, T>(out, w) = T(0);
        } else {
            out = xv[v];
            if (!(first && last)) {
#pragma unroll
                for (int w = 0; w < W; w++)
                    if (!tri_keep<UPPER>(r, c0 + w, k))
                        lane<V, T>(out, w) = T(0);
            }
        }
        yv[v] = out;
    }
}

template <typename T>
cudaError_t diag_embed_typed(cudaStream_t s, const void *x, int64_t n, int64_t x_stride,
                             int64_t k, void *y)
{
    constexpr int W = VecOf<T>::width;
    const int64_t m = n + (k >= 0 ? k : -k);
    const T *xt = static_cast<const T *>(x);
    T *yt = static_cast<T *>(y);
    if (m % W == 0 && aligned16(y)) {
        auto kernel = diag_embed_kernel<T, W>;
        kernel<<<grid_cover(kThreads, m * m / W), kThreads, 0, s>>>(xt, x_stride, k, yt, m);
    } else {
        auto kernel = diag_embed_kernel<T, 1>;
        kernel<<<grid_cover(kThreads, m * m), kThreads, 0, s>>>(xt, x_stride, k, yt, m);
    }
    return cudaGetLastError();
}

template <typename T, bool UPPER>
cudaError_t tri_typed(cudaStream_t s, int64_t k, const void *x, void *y, int64_t batch,
                      int64_t rows, int64_t cols)
{
    constexpr int W = VecOf<T>::width;
    const T *xt = static_cast<const T *>(x);
    T *yt = static_cast<T *>(y);
    if (cols % W == 0 && aligned16(x) && aligned16(y)) {
        auto kernel = tri_kernel<T, UPPER, W>;
        kernel<<<grid_cover(kThreads, batch * rows * (cols / W)), kThreads, 0, s>>>(
            xt, yt, batch, rows, cols, k);
    } else {
        auto kernel = tri_kernel<T, UPPER, 1>;
        kernel<<<grid_cover(kThreads, batch * rows * cols), kThreads, 0, s>>>(
            xt, yt, batch, rows, cols, k);
    }
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_diag_embed(cudaStream_t s, int kind,
                                                  const void *x, int64_t n, int64_t x_stride,
                                                  int64_t k, void *y)
{
    if (n <= 0)
        return cudaSuccess;
    return kind == KIND_F64    ? diag_embed_typed<double>(s, x, n, x_stride, k, y)
           : kind == KIND_BF16 ? diag_embed_typed<bf16>(s, x, n, x_stride, k, y)
                               : diag_embed_typed<float>(s, x, n, x_stride, k, y);
}

extern "C" cudaError_t kbv_cuda_launch_diag_extract(cudaStream_t s, int kind,
                                                    const void *x, int64_t rs, int64_t cs,
                                                    int64_t r0, int64_t c0, int64_t len, void *y)
{
    if (len <= 0)
        return cudaSuccess;
    if (kind == KIND_BF16) {
        auto kernel = diag_extract_kernel<bf16>;
        kernel<<<grid_cover(kThreads, len), kThreads, 0, s>>>(
            static_cast<const bf16 *>(x), rs, cs, r0, c0, len, static_cast<bf16 *>(y));
    } else if (kind == KIND_F64) {
        auto kernel = diag_extract_kernel<double>;
        kernel<<<grid_cover(kThreads, len), kThreads, 0, s>>>(
            static_cast<const double *>(x), rs, cs, r0, c0, len, static_cast<double *>(y));
    } else {
        auto kernel = diag_extract_kernel<float>;
        kernel<<<grid_cover(kThreads, len), kThreads, 0, s>>>(
            static_cast<const float *>(x), rs, cs, r0, c0, len, static_cast<float *>(y));
    }
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_tri(cudaStream_t s, int kind, int upper,
                                           int64_t k, const void *x, void *y, int64_t batch,
                                           int64_t rows, int64_t cols)
{
    if (batch <= 0 || rows <= 0 || cols <= 0)
        return cudaSuccess;
    if (kind == KIND_BF16)
        return upper ? tri_typed<bf16, true>(s, k, x, y, batch, rows, cols)
                     : tri_typed<bf16, false>(s, k, x, y, batch, rows, cols);
    if (kind == KIND_F64)
        return upper ? tri_typed<double, true>(s, k, x, y, batch, rows, cols)
                     : tri_typed<double, false>(s, k, x, y, batch, rows, cols);
    return upper ? tri_typed<float, true>(s, k, x, y, batch, rows, cols)
                 : tri_typed<float, false>(s, k, x, y, batch, rows, cols);
}

/* ---- pad and roll: one thread per result element ---- */

namespace {

struct ShiftedMap {
    int ndim;
    int wrap;
    int64_t in_shape[KBV_MAX_DIMS], in_stride[KBV_MAX_DIMS];
    int64_t out_shape[KBV_MAX_DIMS], offset[KBV_MAX_DIMS];
};

template <typename E>
__global__ void __launch_bounds__(kThreads)
shifted_copy_kernel(const E *__restrict__ x, ShiftedMap m, E fill, E *__restrict__ y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        int64_t rest = i, from = 0;
        bool inside = true;
        for (int d = m.ndim - 1; d >= 0; d--) {
            const int64_t o = rest % m.out_shape[d];
            rest /= m.out_shape[d];
            int64_t c = o - m.offset[d];
            if (m.wrap && c < 0)
                c += m.in_shape[d];
            inside = inside && c >= 0 && c < m.in_shape[d];
            from += c * m.in_stride[d];
        }
        y[i] = inside ? x[from] : fill;
    }
}

template <typename E>
cudaError_t shifted_copy_typed(cudaStream_t s, const void *x, const ShiftedMap &m, uint64_t fill,
                               void *y, int64_t n)
{
    E f;
    memcpy(&f, &fill, sizeof f); /* the low bytes: little-endian, as the host wrote them */
    shifted_copy_kernel<E><<<grid_cover(kThreads, n), kThreads, 0, s>>>(
        static_cast<const E *>(x), m, f, static_cast<E *>(y), n);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t kbv_cuda_launch_shifted_copy(cudaStream_t s, size_t elem_size,
                                                    const void *x, const kbv_cuda_layout *in,
                                                    const int64_t *out_shape,
                                                    const int64_t *offset, int wrap,
                                                    uint64_t fill, void *y)
{
    ShiftedMap m;
    m.ndim = in->ndim;
    m.wrap = wrap;
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++) {
        m.in_shape[d] = in->shape[d];
        m.in_stride[d] = in->stride[d];
        m.out_shape[d] = out_shape[d];
        m.offset[d] = offset[d];
        n *= out_shape[d];
    }
    if (n <= 0 || in->ndim < 1)
        return cudaSuccess;
    switch (elem_size) {
    case 1: return shifted_copy_typed<uint8_t>(s, x, m, fill, y, n);
    case 2: return shifted_copy_typed<uint16_t>(s, x, m, fill, y, n);
    case 4: return shifted_copy_typed<uint32_t>(s, x, m, fill, y, n);
    case 8: return shifted_copy_typed<uint64_t>(s, x, m, fill, y, n);
    default: return cudaErrorInvalidValue;
    }
}

/* ---- index: rows gathered, one thread per result element ---- */

namespace {

template <typename E>
__global__ void __launch_bounds__(kThreads)
index_rows_kernel(const E *__restrict__ x, int64_t rows, int64_t row_len,
                  const int64_t *__restrict__ idx, E *__restrict__ y, int64_t total)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const int64_t m = i / row_len, j = i - m * row_len;
        int64_t r = idx[m];
        if (r < 0)
            r += rows;
        y[i] = r >= 0 && r < rows ? x[r * row_len + j] : E(0);
    }
}

template <typename E>
cudaError_t index_rows_typed(cudaStream_t s, const void *x, int64_t rows, int64_t row_len,
                             const int64_t *idx, int64_t n, void *y)
{
    const int64_t total = n * row_len;
    index_rows_kernel<E><<<grid_cover(kThreads, total), kThreads, 0, s>>>(
        static_cast<const E *>(x), rows, row_len, idx, static_cast<E *>(y), total);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t kbv_cuda_launch_index_rows(cudaStream_t s, size_t elem_size,
                                                  const void *x, int64_t rows, int64_t row_len,
                                                  const int64_t *idx, int64_t n, void *y)
{
    if (n <= 0 || row_len <= 0)
        return cudaSuccess;
    switch (elem_size) {
    case 1: return index_rows_typed<uint8_t>(s, x, rows, row_len, idx, n, y);
    case 2: return index_rows_typed<uint16_t>(s, x, rows, row_len, idx, n, y);
    case 4: return index_rows_typed<uint32_t>(s, x, rows, row_len, idx, n, y);
    case 8: return index_rows_typed<uint64_t>(s, x, rows, row_len, idx, n, y);
    default: return cudaErrorInvalidValue;
    }
}
