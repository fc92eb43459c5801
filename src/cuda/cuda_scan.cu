/* Inclusive cumsum and cumprod, flip and cat.
 *
 * Along the last dim each block scans one row in tiles of 4 elements per
 * thread: a thread scans its 4, the block scans the thread totals (warp
 * shuffles, then the warp totals), and a running carry joins the tiles. The
 * running value is the element type, as PyTorch's CUDA scans keep it, so
 * fp32 overflow (cumprod) gives the inf and inf * 0 = NaN every fp32
 * implementation gives. Along an inner dim each thread scans one column;
 * neighbouring threads read neighbouring elements.
 *
 * bfloat16 follows PyTorch's CUDA scans step for step, since there every
 * combine rounds to bf16 (scan_dim<BFloat16> with std::plus<BFloat16>:
 * its running values are BFloat16), so the result depends on the order:
 * along the last dim ScanUtils.cuh's tensor_kernel_scan_innermost_dim --
 * tiles of 2 x 2^log_x elements (get_log_num_threads_x_inner_scan, its
 * unsigned arithmetic included), the previous tiles' total folded into the
 * tile's first element, then a Sklansky network -- and along an inner dim
 * the sequential column scan above (tensor_kernel_scan_outer_dim). (A tensor
 * that is one row PyTorch hands to CUB instead; kbv scans it as a row.) */
#include <math.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"

using namespace kbv_norm;

namespace {

constexpr int kScanThreads = 512;
constexpr int kThreads = 256;

template <typename T> __device__ __forceinline__ T combine(T a, T b, bool prod)
{
    return prod ? a * b : a + b;
}

/* Exclusive scan of v over the block (identity id); *total gets the whole. */
template <typename T>
__device__ __forceinline__ T block_exclusive(T v, bool prod, T id, T *total)
{
    __shared__ T warp_tot[32];
    const int lid = threadIdx.x % 32, warp = threadIdx.x / 32;
    T inc = v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        T o = __shfl_up_sync(0xffffffffu, inc, off);
        if (lid >= off)
            inc = combine(o, inc, prod);
    }
    if (lid == 31)
        warp_tot[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        const int nw = kScanThreads / 32;
        T w = lid < nw ? warp_tot[lid] : id;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            T o = __shfl_up_sync(0xffffffffu, w, off);
            if (lid >= off)
                w = combine(o, w, prod);
        }
        if (lid < nw)
            warp_tot[lid] = w; /* inclusive over warps */
    }
    __syncthreads();
    const T before_warp = warp ? warp_tot[warp - 1] : id;
    *total = warp_tot[kScanThreads / 32 - 1];
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    exc = lid ? combine(before_warp, exc, prod) : before_warp;
    __syncthreads(); /* warp_tot is reused by the next tile */
    return exc;
}

template <typename T>
__global__ void __launch_bounds__(kScanThreads)
row_scan_kernel(const T *__restrict__ x, int64_t x_stride, T *__restrict__ y, int64_t rows,
                int64_t len, bool prod, bool vec)
{
    const T id = prod ? T(1) : T(0);
    constexpr int64_t kTile = 4 * kScanThreads;
    __shared__ T stage[4 * kScanThreads];
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *xr = x + r * x_stride;
        T *yr = y + r * len;
        T carry = id;
        for (int64_t base = 0; base < len; base += kTile) {
            const int64_t at = base + 4 * (int64_t)threadIdx.x;
            /* one path for the whole block: the staged one has barriers */
            const bool vtile = vec && base + kTile <= len;
            T v[4];
            if (vtile) {
                using V = typename Vec<T>::type;
                if (sizeof(T) == 4) {
                    V a = *reinterpret_cast<const V *>(xr + at);
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        v[k] = lane<V, T>(a, k);
                } else {
                    V a = *reinterpret_cast<const V *>(xr + at);
                    V b = *reinterpret_cast<const V *>(xr + at + 2);
                    v[0] = lane<V, T>(a, 0), v[1] = lane<V, T>(a, 1);
                    v[2] = lane<V, T>(b, 0), v[3] = lane<V, T>(b, 1);
                }
            } else {
                /* unaligned rows: coalesced loads through shared memory */
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const int64_t i = base + k * kScanThreads + threadIdx.x;
                    stage[k * kScanThreads + threadIdx.x] = i < len ? xr[i] : id;
                }
                __syncthreads();
#pragma unroll
                for (int k = 0; k < 4; k++)
                    v[k] = stage[4 * threadIdx.x + k];
            }
#pragma unroll
            for (int k = 1; k < 4; k++)
                v[k] = combine(v[k - 1], v[k], prod);
            T total;
            T exc = block_exclusive(v[3], prod, id, &total);
            const T pre = combine(carry, exc, prod);
            if (vtile) {
                using V = typename Vec<T>::type;
                if (sizeof(T) == 4) {
                    V a;
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        lane<V, T>(a, k) = combine(pre, v[k], prod);
                    *reinterpret_cast<V *>(yr + at) = a;
                } else {
                    V a, b;
                    lane<V, T>(a, 0) = combine(pre, v[0], prod);
                    lane<V, T>(a, 1) = combine(pre, v[1], prod);
                    lane<V, T>(b, 0) = combine(pre, v[2], prod);
                    lane<V, T>(b, 1) = combine(pre, v[3], prod);
                    *reinterpret_cast<V *>(yr + at) = a;
                    *reinterpret_cast<V *>(yr + at + 2) = b;
                }
            } else {
                __syncthreads(); /* every thread has read its inputs from stage */
#pragma unroll
                for (int k = 0; k < 4; k++)
                    stage[4 * threadIdx.x + k] = combine(pre, v[k], prod);
                __syncthreads();
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const int64_t i = base + k * kScanThreads + threadIdx.x;
                    if (i < len)
                        yr[i] = stage[k * kScanThreads + threadIdx.x];
                }
                __syncthreads(); /* stage is refilled by the next tile */
            }
            carry = combine(carry, total, prod);
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
column_scan_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t len,
                   int64_t inner, bool prod)
{
    const int64_t total = outer * inner;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t o = t / inner, i = t % inner;
        const int64_t at = o * len * inner + i;
        T acc = prod ? T(1) : T(0);
        for (int64_t k = 0; k < len; k++) {
            acc = combine(acc, x[at + k * inner], prod);
            y[at + k * inner] = acc;
        }
    }
}

template <typename T>
cudaError_t scan(cudaStream_t s, bool prod, const T *x, int64_t x_stride, T *y, int64_t outer,
                 int64_t len, int64_t inner)
{
    if (inner == 1) {
        const bool vec = aligned16(x) && aligned16(y) && (x_stride * (int64_t)sizeof(T)) % 16 == 0 &&
                         (len * (int64_t)sizeof(T)) % 16 == 0;
        unsigned grid = (unsigned)(outer < 0x7fffffff ? outer : 0x7fffffff);
        row_scan_kernel<T><<<grid, kScanThreads, 0, s>>>(x, x_stride, y, outer, len, prod, vec);
    } else {
        column_scan_kernel<T><<<blocks_for(outer * inner, kThreads), kThreads, 0, s>>>(
            x, y, outer, len, inner, prod);
    }
    return cudaGetLastError();
}

/* PyTorch's get_log_num_threads_x_inner_scan<uint32_t>: about 512 threads
 * per block shared between rows and columns, log2 of the x threads in
 * [4, 9]; 9 + diff wraps as uint32 (many short rows then give 9). */
static uint32_t log_threads_x(uint32_t num_rows, uint32_t row_size)
{
    uint32_t lx = 0, ly = 0;
    while (((uint32_t)1 << lx) < row_size)
        ++lx;
    while (((uint32_t)1 << ly) < num_rows)
        ++ly;
    uint32_t diff = lx - ly;
    uint32_t l = (9u + diff) / 2u;
    return l < 4u ? 4u : l > 9u ? 9u : l;
}

/* One row per threadIdx.y, as tensor_kernel_scan_innermost_dim_impl: each
 * combine is a bf16 result (float arithmetic, rounded to nearest even). */
__global__ void __launch_bounds__(512)
sklansky_rows_bf16(const bf16 *__restrict__ src_, int64_t src_stride, bf16 *__restrict__ tgt_,
                   uint32_t num_rows, uint32_t row_size, uint32_t log_x, bool prod)
{
    extern __shared__ unsigned short sbuf_bits[];
    const uint32_t num_threads_x = 1u << log_x;
    bf16 *row_buf = reinterpret_cast<bf16 *>(sbuf_bits) + num_threads_x * 2 * threadIdx.y;
    const bf16 init = prod ? bf16(1) : bf16(0);
    for (uint32_t block_row = blockIdx.x * blockDim.y; block_row < num_rows;
         block_row += blockDim.y * gridDim.x) {
        const uint32_t row = block_row + threadIdx.y;
        bf16 block_total = init;
        const bf16 *row_src = src_ + (int64_t)row * src_stride;
        bf16 *row_tgt = tgt_ + (int64_t)row * row_size;
        const bool row_exists = row < num_rows;
        for (uint32_t block_col = 0; block_col < row_size; block_col += 2 * num_threads_x) {
            const uint32_t col1 = block_col + threadIdx.x;
            const uint32_t col2 = block_col + num_threads_x + threadIdx.x;
            if (row_exists) {
                row_buf[threadIdx.x] = col1 < row_size ? row_src[col1] : init;
                row_buf[num_threads_x + threadIdx.x] = col2 < row_size ? row_src[col2] : init;
                if (threadIdx.x == 0)
                    row_buf[0] = bf16(combine(float(row_buf[0]), float(block_total), prod));
            }
            __syncthreads();
            for (uint32_t m = 0; m <= log_x; ++m) {
                if (row_exists) {
                    const uint32_t s = 1u << m;
                    const uint32_t a = ((threadIdx.x >> m) << (m + 1)) | s;
                    const uint32_t ti = a + (threadIdx.x % s);
                    const uint32_t si = a - 1;
                    row_buf[ti] = bf16(combine(float(row_buf[ti]), float(row_buf[si]), prod));
                }
                __syncthreads();
            }
            if (row_exists) {
                if (col1 < row_size)
                    row_tgt[col1] = row_buf[threadIdx.x];
                if (col2 < row_size)
                    row_tgt[col2] = row_buf[num_threads_x + threadIdx.x];
            }
            block_total = row_buf[2 * num_threads_x - 1];
            __syncthreads();
        }
    }
}

cudaError_t scan_bf16(cudaStream_t s, bool prod, const bf16 *x, int64_t x_stride, bf16 *y,
                      int64_t outer, int64_t len, int64_t inner)
{
    if (inner != 1) {
        column_scan_kernel<bf16><<<blocks_for(outer * inner, kThreads), kThreads, 0, s>>>(
            x, y, outer, len, inner, prod);
        return cudaGetLastError();
    }
    if (outer > 0xffffffffLL || len > 0xffffffffLL)
        return cudaErrorInvalidValue;   /* PyTorch checks that both fit in unsigned */
    const uint32_t log_x = log_threads_x((uint32_t)outer, (uint32_t)len);
    const uint32_t nx = 1u << log_x, ny = 512u / nx;
    const int64_t blocks = (outer + ny - 1) / ny;
    const unsigned grid = (unsigned)(blocks < 0x7fffffff ? blocks : 0x7fffffff);
    sklansky_rows_bf16<<<grid, dim3(nx, ny), 512 * 2 * sizeof(bf16), s>>>(
        x, x_stride, y, (uint32_t)outer, (uint32_t)len, log_x, prod);
    return cudaGetLastError();
}

/* Copies of elements of S bytes (S = 1, 2, 4, 8 as an unsigned type). */
template <typename E>
__global__ void __launch_bounds__(kThreads)
flip_kernel(const E *__restrict__ x, E *__restrict__ y, int64_t outer, int64_t len,
            int64_t inner)
{
    const int64_t row = len * inner, total = outer * row;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t o = t / row, rest = t % row, k = rest / inner, i = rest % inner;
        y[t] = x[o * row + (len - 1 - k) * inner + i];
    }
}

/* Rows of 4-byte elements whose length is a multiple of 4: 16-byte vectors
 * read from the mirrored position, lanes reversed. */
__global__ void __launch_bounds__(kThreads)
flip_rows4_kernel(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t rows,
                  int64_t vecs)
{
    const int64_t total = rows * vecs;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t r = t / vecs, k = t % vecs;
        float4 a = x[r * vecs + (vecs - 1 - k)];
        y[t] = make_float4(a.w, a.z, a.y, a.x);
    }
}

template <typename E>
cudaError_t flip(cudaStream_t s, const void *x, void *y, int64_t outer, int64_t len,
                 int64_t inner)
{
    flip_kernel<E><<<blocks_for(outer * len * inner, kThreads), kThreads, 0, s>>>(
        (const E *)x, (E *)y, outer, len, inner);
    return cudaGetLastError();
}

/* y's row o is a's row o (na elements) then b's row o (nb elements). */
template <typename E>
__global__ void __launch_bounds__(kThreads)
cat_kernel(const E *__restrict__ a, int64_t na, const E *__restrict__ b, int64_t nb,
           E *__restrict__ y, int64_t outer)
{
    const int64_t n = na + nb;
    for (int64_t o = blockIdx.y; o < outer; o += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * kThreads + threadIdx.x; k < n;
             k += (int64_t)gridDim.x * kThreads)
            y[o * n + k] = k < na ? a[o * na + k] : b[o * nb + (k - na)];
}

template <typename E>
cudaError_t cat(cudaStream_t s, const void *a, int64_t na, const void *b, int64_t nb, void *y,
                int64_t outer)
{
    /* four elements per thread along the row */
    dim3 grid(blocks_for((na + nb + 3) / 4, kThreads), (unsigned)(outer < 65535 ? outer : 65535));
    cat_kernel<E><<<grid, kThreads, 0, s>>>((const E *)a, na, (const E *)b, nb, (E *)y, outer);
    return cudaGetLastError();
}

/* One operand of a cat per blockIdx.y (as PyTorch's CatArrayBatchedCopy):
 * the block row copies its operand's [outer, len * inner] into its columns of
 * y's [outer, total * inner], so a cat of many operands is one launch, not one
 * copy each (DenseNet's blocks cat up to 49). The batch travels as a kernel
 * parameter. */
template <typename E>
__global__ void __launch_bounds__(kThreads)
cat_batch_kernel(kbv_cuda_cat_batch batch, E *__restrict__ y, int64_t outer, int64_t row)
{
    const int k = blockIdx.y;
    const E *__restrict__ x = (const E *)batch.x[k];
    const int64_t len = batch.len[k], at = batch.at[k], n = outer * len;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < n;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t o = t / len;
        y[o * row + at + (t - o * len)] = x[t];
    }
}

template <typename E>
cudaError_t cat_batch(cudaStream_t s, kbv_cuda_cat_batch b, void *y, int64_t outer, int64_t row)
{
    int64_t most = 0;
    for (int k = 0; k < b.n; k++)
        most = b.len[k] * outer > most ? b.len[k] * outer : most;
    /* enough blocks per operand to fill the GPU for the largest, each thread
     * looping over what is left */
    const unsigned gx = (unsigned)(blocks_for(most, kThreads) < 1024 ? blocks_for(most, kThreads)
                                                                     : 1024);
    cat_batch_kernel<E><<<dim3(gx > 0 ? gx : 1, (unsigned)b.n), kThreads, 0, s>>>(b, (E *)y, outer,
                                                                                  row);
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_cat_batch(cudaStream_t s, size_t elem_size,
                                                 const kbv_cuda_cat_batch *batch, void *y,
                                                 int64_t outer, int64_t total, int64_t inner)
{
    if (outer == 0 || inner == 0 || batch->n == 0)
        return cudaSuccess;
    kbv_cuda_cat_batch b = *batch; /* extents in elements of [outer, len * inner] rows */
    for (int k = 0; k < b.n; k++) {
        b.len[k] *= inner;
        b.at[k] *= inner;
    }
    switch (elem_size) {
    case 1: return cat_batch<uint8_t>(s, b, y, outer, total * inner);
    case 2: return cat_batch<uint16_t>(s, b, y, outer, total * inner);
    case 4: return cat_batch<uint32_t>(s, b, y, outer, total * inner);
    case 8: return cat_batch<uint64_t>(s, b, y, outer, total * inner);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_scan(cudaStream_t s, int is_prod, int ft,
                                            const void *x, int64_t x_row_stride, void *y,
                                            int64_t outer, int64_t len, int64_t inner)
{
    if (outer == 0 || len == 0 || inner == 0)
        return cudaSuccess;
    if (inner != 1)
        x_row_stride = len * inner;
    if (ft == KIND_BF16)
        return scan_bf16(s, is_prod, (const bf16 *)x, x_row_stride, (bf16 *)y, outer, len, inner);
    if (ft == KIND_F64)
        return scan<double>(s, is_prod, (const double *)x, x_row_stride, (double *)y, outer, len,
                            inner);
    return scan<float>(s, is_prod, (const float *)x, x_row_stride, (float *)y, outer, len,
                       inner);
}

extern "C" cudaError_t kbv_cuda_launch_flip(cudaStream_t s, size_t elem_size, const void *x,
                                            void *y, int64_t outer, int64_t len, int64_t inner)
{
    if (outer == 0 || len == 0 || inner == 0)
        return cudaSuccess;
    if (elem_size == 4 && inner == 1 && len % 4 == 0 && aligned16(x) && aligned16(y)) {
        flip_rows4_kernel<<<blocks_for(outer * len / 4, kThreads), kThreads, 0, s>>>(
            (const float4 *)x, (float4 *)y, outer, len / 4);
        return cudaGetLastError();
    }
    switch (elem_size) {
    case 1: return flip<uint8_t>(s, x, y, outer, len, inner);
    case 2: return flip<uint16_t>(s, x, y, outer, len, inner);
    case 4: return flip<uint32_t>(s, x, y, outer, len, inner);
    case 8: return flip<uint64_t>(s, x, y, outer, len, inner);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_cat(cudaStream_t s, size_t elem_size, const void *a,
                                           int64_t len_a, const void *b, int64_t len_b, void *y,
                                           int64_t outer, int64_t inner)
{
    if (outer == 0 || inner == 0 || len_a + len_b == 0)
        return cudaSuccess;
    const int64_t na = len_a * inner, nb = len_b * inner;
    switch (elem_size) {
    case 1: return cat<uint8_t>(s, a, na, b, nb, y, outer);
    case 2: return cat<uint16_t>(s, a, na, b, nb, y, outer);
    case 4: return cat<uint32_t>(s, a, na, b, nb, y, outer);
    case 8: return cat<uint64_t>(s, a, na, b, nb, y, outer);
    default: return cudaErrorInvalidValue;
    }
}
