/* Batch, instance, group and layer normalisation: the entry points, which
 * pick a path by the groups' shape (cuda_norm_layout.h), and the chunks path
 * for long runs, in three kernels:
 *   1. partial sums: each block sums (x - shift) and (x - shift)^2 over one
 *      chunk of one run of its group (shift: the group's first element, so
 *      the variance does not cancel away for large means), each 16-byte
 *      vector's four in the element type, the running sums in double;
 *   2. finalize: one block per group combines its partials in a fixed order
 *      into mean and 1/sqrt(var + eps) (biased variance, as PyTorch);
 *   3. apply: y = (x - mean) * invstd * w + b, 16-byte loads and stores; where
 *      a block's chunk lies in one channel, as x * alpha + beta (one FMA);
 *      where a group-norm chunk crosses channels of long planes, channel by
 *      channel, so w and b are looked up per channel, not per element.
 * Two reads and one write per element, the minimum for exact statistics on
 * tensors far larger than L2. bfloat16 data computes in float (its opmath,
 * as PyTorch's acc type): the shifted sums, mean and invstd, the affine, and
 * one rounding per output. */
#include <math.h>

#include "cuda/cuda_norm_layout.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = kNormThreads;
constexpr int64_t kChunk = 16384; /* elements per block: 16 16-byte loads per thread */

static Layout layout_of(int kind, int64_t n, int64_t channels, int64_t spatial, int64_t groups)
{
    Layout l = {};
    l.kind = kind;
    l.spatial = spatial;
    l.channels = channels;
    l.n = n;
    switch (kind) {
    case KBV_CUDA_NORM_BATCH:
        l.groups = channels, l.count = n, l.run = spatial, l.gap = channels * spatial;
        break;
    case KBV_CUDA_NORM_INSTANCE:
        l.groups = n * channels, l.count = 1, l.run = spatial, l.gap = 0;
        break;
    case KBV_CUDA_NORM_GROUP:
        l.per_group = channels / groups;
        l.groups = n * groups, l.count = 1, l.run = l.per_group * spatial, l.gap = 0;
        break;
    default: /* layer: rows of `spatial` */
        l.groups = n, l.count = 1, l.run = spatial, l.gap = 0;
        break;
    }
    l.chunks = (l.run + kChunk - 1) / kChunk;
    if (l.chunks < 1)
        l.chunks = 1;
    return l;
}

/* blockIdx.x: (run, chunk) of the group; groups stride over blockIdx.y. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
partial_kernel(Layout l, const T *__restrict__ x, double2 *__restrict__ partial, bool vec)
{
    const int64_t c = blockIdx.x / l.chunks, j = blockIdx.x % l.chunks;
    const int64_t lo = j * kChunk, hi = lo + kChunk < l.run ? lo + kChunk : l.run;
    for (int64_t g = blockIdx.y; g < l.groups; g += gridDim.y) {
        const T *run = x + group_base(l, g) + c * l.gap;
        const double shift = (double)(acc_t<T>)x[group_base(l, g)];
        double s1 = 0.0, s2 = 0.0;
        if (vec) {
            using V = typename Vec<T>::type;
            constexpr int W = Vec<T>::width;
            using A = acc_t<T>;
            const V *v = reinterpret_cast<const V *>(run + lo);
            const int64_t nv = (hi - lo) / W;
            const A tshift = (A)shift; /* exact: the shift is an element */
#pragma unroll 4
            for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
                V a = v[i];
                A p1 = 0, p2 = 0; /* one vector's shifted sums in A, then in double */
#pragma unroll
                for (int k = 0; k < W; k++) {
                    A d = A(lane<V, T>(a, k)) - tshift;
                    p1 += d;
                    p2 += d * d;
                }
                s1 += (double)p1;
                s2 += (double)p2;
            }
        } else {
            for (int64_t i = lo + threadIdx.x; i < hi; i += kThreads) {
                double d = (double)(acc_t<T>)run[i] - shift;
                s1 += d;
                s2 += d * d;
            }
        }
        s1 = block_sum(s1);
        s2 = block_sum(s2);
        if (threadIdx.x == 0)
            partial[g * l.count * l.chunks + blockIdx.x] = make_double2(s1, s2);
    }
}

/* One block per group: mean and invstd from its partials, in a fixed order. */
__global__ void __launch_bounds__(kThreads)
finalize_kernel(Layout l, const void *x, int kind, const double2 *__restrict__ partial,
                double2 *__restrict__ stats, double eps)
{
    const int64_t per = l.count * l.chunks;
    for (int64_t g = blockIdx.x; g < l.groups; g += gridDim.x) {
        double s1 = 0.0, s2 = 0.0;
        for (int64_t i = threadIdx.x; i < per; i += kThreads) {
            double2 p = partial[g * per + i];
            s1 += p.x;
            s2 += p.y;
        }
        s1 = block_sum(s1);
        s2 = block_sum(s2);
        if (threadIdx.x == 0) {
            const double n = (double)l.count * (double)l.run;
            const int64_t at = group_base(l, g);
            const double shift = kind == KIND_F64    ? ((const double *)x)[at]
                                 : kind == KIND_BF16 ? (double)float(((const bf16 *)x)[at])
                                                     : (double)((const float *)x)[at];
            stats[g] = stats_of(s1, s2, n, shift, eps);
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
apply_kernel(Layout l, const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ w,
             const T *__restrict__ b, const double2 *__restrict__ stats, bool vec)
{
    using V = typename Vec<T>::type;
    using A = acc_t<T>;
    constexpr int W = Vec<T>::width;
    const int64_t c = blockIdx.x / l.chunks, j = blockIdx.x % l.chunks;
    const int64_t lo = j * kChunk, hi = lo + kChunk < l.run ? lo + kChunk : l.run;
    const bool affine = l.kind != KBV_CUDA_NORM_INSTANCE;
    /* one channel across the whole chunk (all but layer norm, and group norm
     * when the chunk does not straddle channels): y = x * alpha + beta */
    const bool uniform = l.kind != KBV_CUDA_NORM_LAYER &&
                         (l.kind != KBV_CUDA_NORM_GROUP || lo / l.spatial == (hi - 1) / l.spatial);
    for (int64_t g = blockIdx.y; g < l.groups; g += gridDim.y) {
        const int64_t at = group_base(l, g) + c * l.gap;
        const double2 st = stats[g];
        const A mean = (A)st.x, invstd = (A)st.y;
        if (uniform) {
            A wk = A(1), bk = A(0);
            if (affine)
                affine_at(l, g, lo, w, b, wk, bk);
            const A alpha = invstd * wk, beta = bk - mean * alpha;
            if (vec) {
                const V *xv = reinterpret_cast<const V *>(x + at + lo);
                V *yv = reinterpret_cast<V *>(y + at + lo);
                const int64_t nv = (hi - lo) / W;
#pragma unroll 4
                for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
                    V a = xv[i];
#pragma unroll
                    for (int k = 0; k < W; k++)
                        lane<V, T>(a, k) = T(A(lane<V, T>(a, k)) * alpha + beta);
                    yv[i] = a;
                }
            } else {
                for (int64_t i = lo + threadIdx.x; i < hi; i += kThreads)
                    y[at + i] = T(A(x[at + i]) * alpha + beta);
            }
        } else if (vec && l.kind == KBV_CUDA_NORM_LAYER) {
            const V *xv = reinterpret_cast<const V *>(x + at + lo);
            const V *wv = reinterpret_cast<const V *>(w + lo);
            const V *bv = reinterpret_cast<const V *>(b + lo);
            V *yv = reinterpret_cast<V *>(y + at + lo);
            const int64_t nv = (hi - lo) / W;
#pragma unroll 4
            for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
                V a = xv[i], ww = wv[i], bb = bv[i];
#pragma unroll
                for (int k = 0; k < W; k++)
                    lane<V, T>(a, k) = T((A(lane<V, T>(a, k)) - mean) * invstd *
                                             A(lane<V, T>(ww, k)) +
                                         A(lane<V, T>(bb, k)));
                yv[i] = a;
            }
        } else if (l.kind == KBV_CUDA_NORM_GROUP && l.spatial >= kThreads) {
            /* a group-norm chunk across channels of long planes: a few
             * segments of one channel each, w and b constant over each (no
             * division per element, 16-byte accesses: the vector path's
             * spatial % W == 0 keeps every segment aligned) */
            const int64_t ch0 = (g % (l.channels / l.per_group)) * l.per_group;
            for (int64_t s0 = lo; s0 < hi;) {
                const int64_t c = s0 / l.spatial;
                const int64_t s1 = (c + 1) * l.spatial < hi ? (c + 1) * l.spatial : hi;
                const A wk = A(w[ch0 + c]), bk = A(b[ch0 + c]);
                if (vec) {
                    const V *xv = reinterpret_cast<const V *>(x + at + s0);
                    V *yv = reinterpret_cast<V *>(y + at + s0);
                    const int64_t nv = (s1 - s0) / W;
#pragma unroll 4
                    for (int64_t i = threadIdx.x; i < nv; i += kThreads) {
                        V a = xv[i];
#pragma unroll
                        for (int k = 0; k < W; k++)
                            lane<V, T>(a, k) = T((A(lane<V, T>(a, k)) - mean) * invstd * wk + bk);
                        yv[i] = a;
                    }
                } else {
                    for (int64_t i = s0 + threadIdx.x; i < s1; i += kThreads)
                        y[at + i] = T((A(x[at + i]) - mean) * invstd * wk + bk);
                }
                s0 = s1;
            }
        } else {
            for (int64_t i = lo + threadIdx.x; i < hi; i += kThreads) {
                A wk = A(1), bk = A(0);
                if (affine)
                    affine_at(l, g, i, w, b, wk, bk);
                y[at + i] = T((A(x[at + i]) - mean) * invstd * wk + bk);
            }
        }
    }
}

template <typename T>
cudaError_t launch(cudaStream_t s, const Layout &l, const T *x, T *y, const T *w, const T *b,
                   double eps, void *scratch)
{
    double2 *partial = static_cast<double2 *>(scratch);
    double2 *stats = partial + l.groups * l.count * l.chunks;
    /* 16-byte path: every run and chunk starts 16-byte aligned */
    constexpr int W = Vec<T>::width;
    const bool vec = aligned16(x) && aligned16(y) && l.run % W == 0 && l.gap % W == 0 &&
                     (l.kind == KBV_CUDA_NORM_BATCH ? l.spatial % W == 0 : true) &&
                     (l.kind != KBV_CUDA_NORM_GROUP || l.spatial % W == 0) &&
                     (l.kind != KBV_CUDA_NORM_LAYER || (aligned16(w) && aligned16(b)));
    const int64_t per_group = l.count * l.chunks;
    if (per_group > 0x7fffffff)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)per_group, (unsigned)(l.groups < 65535 ? l.groups : 65535));
    partial_kernel<T><<<grid, kThreads, 0, s>>>(l, x, partial, vec);
    unsigned fin = (unsigned)(l.groups < 65535 ? l.groups : 65535);
    const int kind = sizeof(T) == 8 ? KIND_F64 : sizeof(T) == 2 ? KIND_BF16 : KIND_F32;
    finalize_kernel<<<fin, kThreads, 0, s>>>(l, x, kind, partial, stats, eps);
    apply_kernel<T><<<grid, kThreads, 0, s>>>(l, x, y, w, b, stats, vec);
    return cudaGetLastError();
}

} /* namespace */

extern "C" size_t kbv_cuda_norm_scratch_bytes(int kind, int64_t n, int64_t channels,
                                              int64_t spatial, int64_t groups)
{
    Layout l = layout_of(kind, n, channels, spatial, groups);
    if (rows_fit(l))
        return 0;
    if (columns_fit(l))
        return columns_scratch_bytes(l);
    return (size_t)(l.groups * l.count * l.chunks + l.groups) * sizeof(double2);
}

extern "C" cudaError_t kbv_cuda_launch_norm(cudaStream_t s, int kind, int ft, const void *x,
                                            void *y, const void *w, const void *b, int64_t n,
                                            int64_t channels, int64_t spatial, int64_t groups,
                                            double eps, void *scratch)
{
    if (kind == KBV_CUDA_NORM_GROUP && (groups <= 0 || channels % groups != 0))
        return cudaErrorInvalidValue;
    Layout l = layout_of(kind, n, channels, spatial, groups);
    if (l.groups == 0 || l.run == 0 || l.count == 0)
        return cudaSuccess;
    if (rows_fit(l))
        return launch_rows(s, l, ft, x, y, w, b, eps);
    if (columns_fit(l))
        return launch_columns(s, l, ft, x, y, w, b, eps, scratch);
    if (ft == KIND_BF16)
        return launch<bf16>(s, l, (const bf16 *)x, (bf16 *)y, (const bf16 *)w, (const bf16 *)b,
                            eps, scratch);
    if (ft == KIND_F64)
        return launch<double>(s, l, (const double *)x, (double *)y, (const double *)w,
                              (const double *)b, eps, scratch);
    return launch<float>(s, l, (const float *)x, (float *)y, (const float *)w, (const float *)b,
                         eps, scratch);
}
