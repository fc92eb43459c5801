/* The columns path of the normalisations (cuda_norm_layout.h): batch norm
 * whose channels hold few elements per sample, above all BatchNorm1d of a
 * [N, C] GEMM output (one element per channel per sample). The chunks path
 * would give each channel's sample a block of its own; here the tensor is
 * read as N rows of C * spatial columns (a column lies in one channel),
 * as PyTorch's channels-last statistics kernels read it:
 *   1. partial sums: a block takes 32 16-byte column vectors (or 32 lanes of
 *      single columns) across one chunk of the rows, its warps striding the
 *      rows; each column's sums of (x - shift) and (x - shift)^2 (shift: the
 *      channel's first element) in double, the warps' combined in a fixed
 *      order into one partial per (row chunk, column);
 *   2. finalize: a warp per channel adds its partials in a fixed order into
 *      mean and 1/sqrt(var + eps);
 *   3. apply: y = x * alpha + beta per column, the same blocks' layout.
 * The row chunks are as many as fill the GPU, but about kMinChunkRows rows
 * long at least, so the partials stay a small fraction of the tensor (1/16
 * of float data at N = 1024, at most 1/8 once N is 64 or more). */
#include "cuda/cuda_norm_layout.h"

namespace kbv_norm {

namespace {

constexpr int kThreads = kNormThreads;
constexpr int kWarps = kThreads / 32;
/* Enough blocks for every SM of a large GPU several times over. */
constexpr int64_t kTargetBlocks = 1024;
constexpr int64_t kMinChunkRows = 64;
/* Column tile of the row-chunk count's choice (the element type's tile
 * is 32 16-byte vectors; this keeps the scratch size independent of it). */
constexpr int64_t kNominalTile = 128;

struct Chunks {
    int64_t rows; /* rows per chunk */
    int64_t count;
};

Chunks chunks_of(const Layout &l)
{
    const int64_t cols = l.channels * l.spatial;
    int64_t tiles = (cols + kNominalTile - 1) / kNominalTile;
    tiles = tiles < 1 ? 1 : tiles;
    int64_t want = (kTargetBlocks + tiles - 1) / tiles;
    const int64_t most = (l.n + kMinChunkRows - 1) / kMinChunkRows;
    want = want < most ? want : most;
    want = want < 1 ? 1 : want > 65535 ? 65535 : want;
    Chunks c;
    c.rows = (l.n + want - 1) / want;
    c.rows = c.rows < 1 ? 1 : c.rows;
    c.count = (l.n + c.rows - 1) / c.rows;
    return c;
}

/* blockIdx.x: a tile of 32 * W columns; blockIdx.y: a chunk of rows. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
column_partial_kernel(Layout l, Chunks ch, const T *__restrict__ x,
                      double2 *__restrict__ partial, bool vec)
{
    using V = typename Vec<T>::type;
    using A = acc_t<T>;
    constexpr int W = Vec<T>::width;
    const int64_t cols = l.channels * l.spatial;
    const int lid = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
    const int64_t k0 = (int64_t)blockIdx.x * (32 * W) + lid * W;
    const int64_t j = blockIdx.y;
    const int64_t r0 = j * ch.rows, r1 = r0 + ch.rows < l.n ? r0 + ch.rows : l.n;
    double shift[W], s1[W], s2[W];
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int64_t col = k0 + k;
        shift[k] = col < cols ? (double)(A)x[(col / l.spatial) * l.spatial] : 0.0;
        s1[k] = s2[k] = 0.0;
    }
    if (vec && k0 < cols) { /* cols % W == 0: the whole vector is in range */
#pragma unroll 4
        for (int64_t r = r0 + warp; r < r1; r += kWarps) {
            V a = *reinterpret_cast<const V *>(x + r * cols + k0);
#pragma unroll
            for (int k = 0; k < W; k++) {
                const double d = (double)A(lane<V, T>(a, k)) - shift[k];
                s1[k] += d;
                s2[k] += d * d;
            }
        }
    } else if (k0 < cols) {
        for (int64_t r = r0 + warp; r < r1; r += kWarps)
#pragma unroll
            for (int k = 0; k < W; k++)
                if (k0 + k < cols) {
                    const double d = (double)(A)x[r * cols + k0 + k] - shift[k];
                    s1[k] += d;
                    s2[k] += d * d;
                }
    }
    __shared__ double2 sums[kWarps][32 * W];
#pragma unroll
    for (int k = 0; k < W; k++)
        sums[warp][lid * W + k] = make_double2(s1[k], s2[k]);
    __syncthreads();
    if (warp != 0)
        return;
    const int64_t per = ch.count * l.spatial; /* partials per channel */
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int64_t col = k0 + k;
        if (col >= cols)
            continue;
        double t1 = 0.0, t2 = 0.0;
        for (int q = 0; q < kWarps; q++) {
            t1 += sums[q][lid * W + k].x;
            t2 += sums[q][lid * W + k].y;
        }
        const int64_t c = col / l.spatial, sp = col % l.spatial;
        partial[c * per + j * l.spatial + sp] = make_double2(t1, t2);
    }
}

/* A warp per channel: its chunks' partials, in a fixed order, into stats. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
column_finalize_kernel(Layout l, Chunks ch, const T *__restrict__ x,
                       const double2 *__restrict__ partial, double2 *__restrict__ stats,
                       double eps)
{
    const int64_t c = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32;
    const int lid = (int)threadIdx.x % 32;
    if (c >= l.channels) /* a whole warp: no shuffle is left waiting */
        return;
    const int64_t per = ch.count * l.spatial;
    double s1 = 0.0, s2 = 0.0;
    for (int64_t i = lid; i < per; i += 32) {
        const double2 p = partial[c * per + i];
        s1 += p.x;
        s2 += p.y;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        s1 += __shfl_down_sync(0xffffffffu, s1, off);
        s2 += __shfl_down_sync(0xffffffffu, s2, off);
    }
    if (lid == 0) {
        const double shift = (double)(acc_t<T>)x[c * l.spatial];
        stats[c] = stats_of(s1, s2, (double)l.n * (double)l.spatial, shift, eps);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
column_apply_kernel(Layout l, Chunks ch, const T *__restrict__ x, T *__restrict__ y,
                    const T *__restrict__ w, const T *__restrict__ b,
                    const double2 *__restrict__ stats, bool vec)
{
    using V = typename Vec<T>::type;
    using A = acc_t<T>;
    constexpr int W = Vec<T>::width;
    const int64_t cols = l.channels * l.spatial;
    const int lid = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
    const int64_t k0 = (int64_t)blockIdx.x * (32 * W) + lid * W;
    const int64_t r0 = (int64_t)blockIdx.y * ch.rows;
    const int64_t r1 = r0 + ch.rows < l.n ? r0 + ch.rows : l.n;
    A alpha[W], beta[W];
#pragma unroll
    for (int k = 0; k < W; k++) {
        alpha[k] = A(0), beta[k] = A(0);
        if (k0 + k < cols) {
            const int64_t c = (k0 + k) / l.spatial;
            const double2 st = stats[c];
            const A mean = (A)st.x, invstd = (A)st.y;
            alpha[k] = invstd * A(w[c]);
            beta[k] = A(b[c]) - mean * alpha[k];
        }
    }
    if (vec && k0 < cols) {
#pragma unroll 4
        for (int64_t r = r0 + warp; r < r1; r += kWarps) {
            V a = *reinterpret_cast<const V *>(x + r * cols + k0);
#pragma unroll
            for (int k = 0; k < W; k++)
                lane<V, T>(a, k) = T(A(lane<V, T>(a, k)) * alpha[k] + beta[k]);
            *reinterpret_cast<V *>(y + r * cols + k0) = a;
        }
    } else if (k0 < cols) {
        for (int64_t r = r0 + warp; r < r1; r += kWarps)
#pragma unroll
            for (int k = 0; k < W; k++)
                if (k0 + k < cols)
                    y[r * cols + k0 + k] = T(A(x[r * cols + k0 + k]) * alpha[k] + beta[k]);
    }
}

template <typename T>
cudaError_t launch(cudaStream_t s, const Layout &l, const T *x, T *y, const T *w, const T *b,
                   double eps, void *scratch)
{
    constexpr int W = Vec<T>::width;
    const Chunks ch = chunks_of(l);
    const int64_t cols = l.channels * l.spatial;
    double2 *partial = static_cast<double2 *>(scratch);
    double2 *stats = partial + ch.count * cols;
    /* 16-byte path: every row starts 16-byte aligned */
    const bool vec = aligned16(x) && aligned16(y) && cols % W == 0;
    const int64_t tiles = (cols + 32 * W - 1) / (32 * W);
    const int64_t fin = (l.channels + kWarps - 1) / kWarps;
    if (tiles > 0x7fffffff || fin > 0x7fffffff)
        return cudaErrorInvalidValue;
    const dim3 grid((unsigned)tiles, (unsigned)ch.count);
    column_partial_kernel<T><<<grid, kThreads, 0, s>>>(l, ch, x, partial, vec);
    column_finalize_kernel<T><<<(unsigned)fin, kThreads, 0, s>>>(l, ch, x, partial, stats, eps);
    column_apply_kernel<T><<<grid, kThreads, 0, s>>>(l, ch, x, y, w, b, stats, vec);
    return cudaGetLastError();
}

} /* namespace */

bool columns_fit(const Layout &l)
{
    return l.kind == KBV_CUDA_NORM_BATCH && l.spatial < kColumnsMaxSpatial;
}

size_t columns_scratch_bytes(const Layout &l)
{
    const Chunks ch = chunks_of(l);
    return (size_t)(ch.count * l.channels * l.spatial + l.channels) * sizeof(double2);
}

cudaError_t launch_columns(cudaStream_t s, const Layout &l, int ft, const void *x, void *y,
                           const void *w, const void *b, double eps, void *scratch)
{
    if (ft == KIND_BF16)
        return launch<bf16>(s, l, (const bf16 *)x, (bf16 *)y, (const bf16 *)w,
                            (const bf16 *)b, eps, scratch);
    if (ft == KIND_F64)
        return launch<double>(s, l, (const double *)x, (double *)y, (const double *)w,
                              (const double *)b, eps, scratch);
    return launch<float>(s, l, (const float *)x, (float *)y, (const float *)w,
                         (const float *)b, eps, scratch);
}

} /* namespace kbv_norm */
