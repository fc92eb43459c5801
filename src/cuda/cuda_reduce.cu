/* Reductions along the middle dim of [outer, len, inner] (sum, mean, max,
 * min, argmax, argmin, 2-norm) and over a whole tensor (mean, Frobenius
 * norm). Sums add short runs (one 16-byte vector, or 16 column elements) in
 * the element type (float for bfloat16) and accumulate those in double; max/min compare in the element type, a NaN wins
 * (its value, or its first index) and ties keep the first index, as in
 * PyTorch. Along the last dim a block reduces each row with 16-byte loads
 * (a warp, a short row);
 * along an inner dim each thread walks one column, so a warp reads 32
 * consecutive elements per step (coalesced) and keeps 8 loads in flight, or
 * (the split kernels) a block of 32 columns x SPLIT threads cuts each column
 * into SPLIT parts and combines their results in shared memory: SPLIT times
 * the threads, each with a shorter walk. reduce_pick_algo chooses. */
#include <math.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"
#include "graph/ops.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = 256;
constexpr int kMaxAllBlocks = 2048;

enum Kind { SUM, MEAN, NORM, MAX, MIN, ARGMAX, ARGMIN };

/* (value, index) of an arg/value reduction; `better` says whether b wins. */
template <typename T> struct Best {
    T v;
    int64_t i;
};

template <typename T> __device__ __forceinline__ bool wins(const Best<T> &b, const Best<T> &a,
                                                           bool want_max)
{
    const bool bn = b.v != b.v, an = a.v != a.v;
    if (an || bn)
        return bn && (!an || b.i < a.i);
    if (b.v == a.v)
        return b.i < a.i;
    return want_max ? b.v > a.v : b.v < a.v;
}

template <typename T> __device__ Best<T> block_best(Best<T> x, bool want_max)
{
    __shared__ T sv[32];
    __shared__ int64_t si[32];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        Best<T> o = {shfl_down(x.v, off), __shfl_down_sync(0xffffffffu, x.i, off)};
        if (wins(o, x, want_max))
            x = o;
    }
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32;
    __syncthreads();
    if (lid == 0) {
        sv[warp] = x.v;
        si[warp] = x.i;
    }
    __syncthreads();
    if (warp == 0) {
        x = lid < (int)(blockDim.x / 32) ? Best<T>{sv[lid], si[lid]} : Best<T>{sv[0], si[0]};
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            Best<T> o = {shfl_down(x.v, off), __shfl_down_sync(0xffffffffu, x.i, off)};
            if (wins(o, x, want_max))
                x = o;
        }
    }
    return x;
}

template <typename T> __device__ __forceinline__ void store(void *y, int64_t at, Kind k,
                                                            double acc, Best<T> b, int64_t len)
{
    switch (k) {
    case SUM: ((T *)y)[at] = (T)acc; break;
    case MEAN: ((T *)y)[at] = (T)(acc / (double)len); break;
    case NORM: ((T *)y)[at] = (T)sqrt(acc); break;
    case MAX:
    case MIN: ((T *)y)[at] = b.v; break;
    default: ((int64_t *)y)[at] = b.i; break;
    }
}

/* One block per row (rows = outer, inner == 1). */
template <typename T>
__global__ void __launch_bounds__(kThreads)
row_kernel(Kind kind, const T *__restrict__ x, void *__restrict__ y, int64_t rows, int64_t len)
{
    const bool is_sum = kind == SUM || kind == MEAN || kind == NORM;
    const bool want_max = kind == MAX || kind == ARGMAX;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *row = x + r * len;
        /* elements before the first 16-byte boundary, then vectors, then the tail */
        constexpr int W = Vec<T>::width;
        using V = typename Vec<T>::type;
        int64_t head = (int64_t)((16 - ((uintptr_t)row & 15)) & 15) / (int64_t)sizeof(T);
        if (((uintptr_t)row & (sizeof(T) - 1)) != 0 || head > len)
            head = len; /* not even element-aligned: all scalar */
        const int64_t nv = (len - head) / W, tail = head + nv * W;
        double acc = 0.0;
        Best<T> best = {len ? row[0] : T(0), 0};
        auto visit = [&](T v, int64_t i) {
            if (is_sum) {
                double d = (double)v;
                acc += kind == NORM ? d * d : d;
            } else {
                Best<T> c = {v, i};
                if (wins(c, best, want_max))
                    best = c;
            }
        };
        for (int64_t i = threadIdx.x; i < head; i += kThreads)
            visit(row[i], i);
        const V *rv = reinterpret_cast<const V *>(row + head);
#pragma unroll 4
        for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
            V a = rv[i];
            if (is_sum) { /* the vector's lanes summed in A, then into the double total */
                acc_t<T> part = 0;
#pragma unroll
                for (int k = 0; k < W; k++) {
                    acc_t<T> v = lane<V, T>(a, k);
                    part += kind == NORM ? v * v : v;
                }
                acc += (double)part;
                continue;
            }
#pragma unroll
            for (int k = 0; k < W; k++)
                visit(lane<V, T>(a, k), head + i * W + k);
        }
        for (int64_t i = tail + threadIdx.x; i < len; i += kThreads)
            visit(row[i], i);
        if (is_sum) {
            acc = block_sum(acc);
        } else {
            best = block_best(best, want_max);
        }
        if (threadIdx.x == 0)
            store<T>(y, r, kind, acc, best, len);
    }
}

/* Short rows (inner == 1, len <= kWarpRowLen): one warp per row, lane l
 * taking elements l, l + 32, ...; a block per row left most of its 256
 * threads idle on Swin V2's 32-element norms (4x PyTorch's time on an H200). */
constexpr int64_t kWarpRowLen = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
row_warp_kernel(Kind kind, const T *__restrict__ x, void *__restrict__ y, int64_t rows,
                int64_t len)
{
    const bool is_sum = kind == SUM || kind == MEAN || kind == NORM;
    const bool want_max = kind == MAX || kind == ARGMAX;
    const int lid = threadIdx.x % 32;
    const int64_t nwarps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += nwarps) {
        const T *row = x + r * len;
        double acc = 0.0;
        Best<T> best = {len ? row[0] : T(0), 0};
        for (int64_t i = lid; i < len; i += 32) {
            const T v = row[i];
            if (is_sum) {
                const double d = (double)(acc_t<T>)v;
                acc += kind == NORM ? d * d : d;
            } else {
                Best<T> c = {v, i};
                if (wins(c, best, want_max))
                    best = c;
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            if (is_sum) {
                acc += __shfl_down_sync(0xffffffffu, acc, off);
            } else {
                Best<T> o = {shfl_down(best.v, off), __shfl_down_sync(0xffffffffu, best.i, off)};
                if (wins(o, best, want_max))
                    best = o;
            }
        }
        if (lid == 0)
            store<T>(y, r, kind, acc, best, len);
    }
}

/* One thread per (outer, inner) column, walking len elements inner apart. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
column_kernel(Kind kind, const T *__restrict__ x, void *__restrict__ y, int64_t outer,
              int64_t len, int64_t inner)
{
    const bool is_sum = kind == SUM || kind == MEAN || kind == NORM;
    const bool want_max = kind == MAX || kind == ARGMAX;
    const int64_t total = outer * inner;
    for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * kThreads) {
        const int64_t o = t / inner, in = t % inner;
        const T *col = x + o * len * inner + in;
        double acc = 0.0;
        Best<T> best = {col[0], 0};
        if (is_sum) {
            /* 16 loads in flight; each group of 16 is summed in the element
             * type (a short sum), then added to the double total */
            const bool sq = kind == NORM;
            int64_t k = 0;
            for (; k + 16 <= len; k += 16) {
                T v[16];
#pragma unroll
                for (int u = 0; u < 16; u++)
                    v[u] = col[(k + u) * inner];
                acc_t<T> part = 0;
#pragma unroll
                for (int u = 0; u < 16; u++) {
                    const acc_t<T> e = v[u];
                    part += sq ? e * e : e;
                }
                acc += (double)part;
            }
            for (; k < len; k++) {
                double d = (double)(acc_t<T>)col[k * inner];
                acc += sq ? d * d : d;
            }
        } else {
            int64_t k = 1;
            for (; k + 8 <= len && best.v == best.v; k += 8) {
                T v[8];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    v[u] = col[(k + u) * inner];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    if (best.v == best.v &&
                        (v[u] != v[u] || (want_max ? v[u] > best.v : v[u] < best.v)))
                        best = Best<T>{v[u], k + u};
            }
            for (; k < len && best.v == best.v; k++) {
                T v = col[k * inner];
                if (v != v || (want_max ? v > best.v : v < best.v))
                    best = Best<T>{v, k};
            }
        }
        store<T>(y, t, kind, acc, best, len);
    }
}

/* Columns [COLS * g, COLS * g + COLS) of one outer index per block: thread
 * (lane, p) reduces part p of its column's len elements, either the
 * contiguous rows [p * part, p * part + part) (part a multiple of 16, so the
 * sums add the same runs of 16 as column_kernel) or, STRIDED, rows p,
 * p + SPLIT, p + 2 SPLIT, ... (PyTorch's order); sums keep UNROLL loads in
 * flight and add runs of UNROLL elements. Thread (lane, 0) then
 * combines the parts in order: sums in double; best values by `wins`, which
 * keeps the first index of a tie or a NaN whatever the parts' order. */
template <typename T, int COLS, int SPLIT, bool STRIDED, int UNROLL>
__global__ void __launch_bounds__(COLS * SPLIT)
split_kernel(Kind kind, const T *__restrict__ x, void *__restrict__ y, int64_t outer,
             int64_t len, int64_t inner, int64_t groups, int64_t part)
{
    __shared__ double part_sum[SPLIT][COLS];
    __shared__ T part_v[SPLIT][COLS];
    __shared__ int64_t part_i[SPLIT][COLS];
    const bool is_sum = kind == SUM || kind == MEAN || kind == NORM;
    const bool want_max = kind == MAX || kind == ARGMAX;
    const int lane = threadIdx.x, p = threadIdx.y;
    constexpr int64_t step = STRIDED ? SPLIT : 1;
    for (int64_t b = blockIdx.x; b < outer * groups; b += gridDim.x) {
        const int64_t o = b / groups, c = (b - o * groups) * COLS + lane;
        const T *col = x + o * len * inner + c;
        const int64_t first = STRIDED ? p : p * part;
        const int64_t end = STRIDED ? len : min(len, first + part);
        double acc = 0.0;
        Best<T> best = {T(0), -1}; /* index -1: the part is empty */
        if (c < inner && first < end) {
            if (is_sum) {
                const bool sq = kind == NORM;
                int64_t k = first;
                for (; k + (UNROLL - 1) * step < end; k += UNROLL * step) {
                    T v[UNROLL];
#pragma unroll
                    for (int u = 0; u < UNROLL; u++)
                        v[u] = col[(k + u * step) * inner];
                    acc_t<T> run = 0;
#pragma unroll
                    for (int u = 0; u < UNROLL; u++) {
                        const acc_t<T> e = v[u];
                        run += sq ? e * e : e;
                    }
                    acc += (double)run;
                }
                for (; k < end; k += step) {
                    double d = (double)(acc_t<T>)col[k * inner];
                    acc += sq ? d * d : d;
                }
            } else {
                best = Best<T>{col[first * inner], first};
                int64_t k = first + step;
                for (; k + 7 * step < end && best.v == best.v; k += 8 * step) {
                    T v[8];
#pragma unroll
                    for (int u = 0; u < 8; u++)
                        v[u] = col[(k + u * step) * inner];
#pragma unroll
                    for (int u = 0; u < 8; u++)
                        if (best.v == best.v &&
                            (v[u] != v[u] || (want_max ? v[u] > best.v : v[u] < best.v)))
                            best = Best<T>{v[u], k + u * step};
                }
                for (; k < end && best.v == best.v; k += step) {
                    T v = col[k * inner];
                    if (v != v || (want_max ? v > best.v : v < best.v))
                        best = Best<T>{v, k};
                }
            }
        }
        part_sum[p][lane] = acc;
        part_v[p][lane] = best.v;
        part_i[p][lane] = best.i;
        __syncthreads();
        if (p == 0 && c < inner) {
            acc = 0.0;
            best = Best<T>{T(0), -1};
            for (int q = 0; q < SPLIT; q++) {
                acc += part_sum[q][lane];
                const Best<T> other = {part_v[q][lane], part_i[q][lane]};
                if (other.i >= 0 && (best.i < 0 || wins(other, best, want_max)))
                    best = other;
            }
            store<T>(y, o * inner + c, kind, acc, best, len);
        }
        __syncthreads(); /* the parts are read before the next columns' overwrite them */
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
all_partial_kernel(const T *__restrict__ x, int64_t n, bool squares, double *__restrict__ part)
{
    using V = typename Vec<T>::type;
    constexpr int W = Vec<T>::width;
    const bool vec = ((uintptr_t)x & 15) == 0;
    double acc = 0.0;
    const int64_t step = (int64_t)gridDim.x * kThreads;
    const int64_t start = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int64_t done = 0;
    if (vec) {
        const V *xv = reinterpret_cast<const V *>(x);
        const int64_t nv = n / W;
#pragma unroll 4
        for (int64_t i = start; i < nv; i += step) {
            V a = xv[i];
            acc_t<T> part = 0;
#pragma unroll
            for (int k = 0; k < W; k++) {
                acc_t<T> v = lane<V, T>(a, k);
                part += squares ? v * v : v;
            }
            acc += (double)part;
        }
        done = nv * W;
    }
    for (int64_t i = done + start; i < n; i += step) {
        double d = (double)(acc_t<T>)x[i];
        acc += squares ? d * d : d;
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
all_final_kernel(const double *__restrict__ part, int parts, int64_t n, bool squares,
                 T *__restrict__ y)
{
    double acc = 0.0;
    for (int i = threadIdx.x; i < parts; i += kThreads)
        acc += part[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        *y = (T)(squares ? sqrt(acc) : acc / (double)n);
}

static int all_blocks(int64_t n)
{
    int64_t b = (n / 4 + kThreads - 1) / kThreads;
    return (int)(b < 1 ? 1 : b > kMaxAllBlocks ? kMaxAllBlocks : b);
}

template <typename T, int COLS, int SPLIT, bool STRIDED, int UNROLL = 16>
void launch_split(cudaStream_t s, Kind kind, const T *x, void *y, int64_t outer, int64_t len,
                  int64_t inner)
{
    const int64_t groups = (inner + COLS - 1) / COLS;
    const int64_t part = ((len + SPLIT - 1) / SPLIT + 15) / 16 * 16;
    split_kernel<T, COLS, SPLIT, STRIDED, UNROLL>
        <<<blocks_for(outer * groups, 1), dim3(COLS, SPLIT), 0, s>>>(kind, x, y, outer, len,
                                                                      inner, groups, part);
}

template <typename T>
cudaError_t reduce_dim(cudaStream_t s, Kind kind, const T *x, void *y, int64_t outer,
                       int64_t len, int64_t inner, int algo)
{
    if (inner == 1 && len <= kWarpRowLen) {
        row_warp_kernel<T><<<kbv_cuda::grid_cover(kThreads / 32, outer), kThreads, 0, s>>>(kind, x, y,
                                                                               outer, len);
        return cudaGetLastError();
    }
    if (inner == 1) { /* rows: one kernel whatever the algo */
        unsigned grid = (unsigned)(outer < 0x7fffffff ? outer : 0x7fffffff);
        row_kernel<T><<<grid, kThreads, 0, s>>>(kind, x, y, outer, len);
        return cudaGetLastError();
    }
    switch (algo) {
    case KBV_CUDA_REDUCE_COLUMN:
        column_kernel<T><<<blocks_for(outer * inner, kThreads), kThreads, 0, s>>>(
            kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_SPLIT4:
        launch_split<T, 32, 4, false>(s, kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_SPLIT8:
        launch_split<T, 32, 8, false>(s, kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_SPLIT16:
        launch_split<T, 32, 16, false>(s, kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_SPLIT16_STRIDED:
        launch_split<T, 32, 16, true>(s, kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_SPLIT16_STRIDED_U8:
        launch_split<T, 32, 16, true, 8>(s, kind, x, y, outer, len, inner);
        break;
    case KBV_CUDA_REDUCE_WIDE64_SPLIT8:
        launch_split<T, 64, 8, true>(s, kind, x, y, outer, len, inner);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* The kernel for a reduction of [outer, len, inner] along len (inner > 1),
 * from bench/probes/pool_reduce_variants.cu on an H200 ([128, 4096, 4095]
 * along dim 1, ms, 2026-11-30): sums read best with 64 columns x 8 parts,
 * rows 8 apart (2.120; PyTorch's reduce_kernel 2.08-2.14; 32 x 16 strided
 * 2.233, 128 x 4 2.151, 32 x 32 3.43, the column kernel 2.354); max, min and
 * their indices with 32 x 16 strided parts whose sums keep 8 loads in
 * flight, the kernel's register count being shared by every kind (2.23-2.26
 * against 2.35-2.41 with four contiguous parts). A part needs a run of 16
 * elements at least, else the column kernel. */
int reduce_pick_algo(int op, int64_t outer, int64_t len, int64_t inner)
{
    (void)outer;
    (void)inner;
    const bool sum = op == KBV_OP_SUM || op == KBV_OP_MEAN || op == KBV_OP_NORM_DIM;
    if (sum)
        return len >= 8 * 16 ? KBV_CUDA_REDUCE_WIDE64_SPLIT8 : KBV_CUDA_REDUCE_COLUMN;
    return len >= 16 * 16 ? KBV_CUDA_REDUCE_SPLIT16_STRIDED_U8 : KBV_CUDA_REDUCE_COLUMN;
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_reduce_dim(cudaStream_t s, int op, int ft,
                                                  const void *x, void *y, int64_t outer,
                                                  int64_t len, int64_t inner)
{
    return kbv_cuda_launch_reduce_dim_algo(s, op, ft, x, y, outer, len, inner,
                                           reduce_pick_algo(op, outer, len, inner));
}

extern "C" cudaError_t kbv_cuda_launch_reduce_dim_algo(cudaStream_t s, int op, int ft,
                                                       const void *x, void *y, int64_t outer,
                                                       int64_t len, int64_t inner, int algo)
{
    Kind kind;
    switch (op) {
    case KBV_OP_SUM: kind = SUM; break;
    case KBV_OP_MEAN: kind = MEAN; break;
    case KBV_OP_NORM_DIM: kind = NORM; break;
    case KBV_OP_MAX: kind = MAX; break;
    case KBV_OP_MIN: kind = MIN; break;
    case KBV_OP_ARGMAX: kind = ARGMAX; break;
    case KBV_OP_ARGMIN: kind = ARGMIN; break;
    default: return cudaErrorInvalidValue;
    }
    if (algo < 0 || algo >= KBV_CUDA_REDUCE_ALGO_COUNT)
        return cudaErrorInvalidValue;
    if (outer == 0 || inner == 0)
        return cudaSuccess;
    if (len == 0 && kind != SUM && kind != NORM)
        return cudaErrorInvalidValue;
    if (len == 0) /* an empty sum is 0 */
        return cudaMemsetAsync(y, 0,
                               (size_t)(outer * inner) * (ft == KIND_F64    ? 8
                                                          : ft == KIND_BF16 ? 2
                                                                            : 4),
                               s);
    if (ft == KIND_BF16)
        return reduce_dim<bf16>(s, kind, (const bf16 *)x, y, outer, len, inner, algo);
    if (ft == KIND_F64)
        return reduce_dim<double>(s, kind, (const double *)x, y, outer, len, inner, algo);
    return reduce_dim<float>(s, kind, (const float *)x, y, outer, len, inner, algo);
}

extern "C" size_t kbv_cuda_reduce_all_scratch_bytes(int64_t n)
{
    return (size_t)all_blocks(n) * sizeof(double);
}

extern "C" cudaError_t kbv_cuda_launch_reduce_all(cudaStream_t s, int squares, int ft,
                                                  const void *x, void *y, int64_t n,
                                                  void *scratch)
{
    const int parts = all_blocks(n);
    double *part = static_cast<double *>(scratch);
    if (ft == KIND_BF16) {
        all_partial_kernel<bf16><<<parts, kThreads, 0, s>>>((const bf16 *)x, n, squares, part);
        all_final_kernel<bf16><<<1, kThreads, 0, s>>>(part, parts, n, squares, (bf16 *)y);
    } else if (ft == KIND_F64) {
        all_partial_kernel<double><<<parts, kThreads, 0, s>>>((const double *)x, n, squares,
                                                              part);
        all_final_kernel<double><<<1, kThreads, 0, s>>>(part, parts, n, squares, (double *)y);
    } else {
        all_partial_kernel<float><<<parts, kThreads, 0, s>>>((const float *)x, n, squares, part);
        all_final_kernel<float><<<1, kThreads, 0, s>>>(part, parts, n, squares, (float *)y);
    }
    return cudaGetLastError();
}
