/* The rows path of the normalisations (cuda_norm_layout.h): instance, group
 * and layer norm whose groups are short runs (GroupNorm of a [N, C] GEMM
 * output, LayerNorm over a last dim of 64). A block per group, as the chunks
 * path runs them, would keep a few of its 256 threads busy and pay three
 * kernels and a scratch per group; here L lanes of a warp (the power of two
 * that gives each about one 16-byte vector, at most 32) own one group:
 *   1. they sum (x - shift) and (x - shift)^2 over the group (shift: its
 *      first element), each vector's lanes in the element's compute type,
 *      the running sums in double, as the chunks path does;
 *   2. a butterfly of shuffles gives every lane the same totals, and so the
 *      same mean and 1/sqrt(var + eps);
 *   3. they write y from a second read of the group, which is still in L1.
 * One kernel, no scratch, one read from HBM and one write per element. */
#include "cuda/cuda_norm_layout.h"

namespace kbv_norm {

namespace {

constexpr int kThreads = kNormThreads;

/* The lanes per group: a 16-byte vector (or an element) each, a power of
 * two, at most a warp. */
int lanes_for(int64_t run, int width)
{
    const int64_t steps = (run + width - 1) / width;
    int lanes = 1;
    while (lanes < 32 && lanes < steps)
        lanes *= 2;
    return lanes;
}

/* The affine of element e (< kRowsMaxRun) of a group whose first channel is
 * ch0 (group norm), in A: no 64-bit division per element. */
template <typename T, typename A>
__device__ __forceinline__ void row_affine(const Layout &l, int64_t ch0, int e,
                                           const T *__restrict__ w, const T *__restrict__ b,
                                           A &wk, A &bk)
{
    if (l.kind == KBV_CUDA_NORM_LAYER) {
        wk = A(w[e]);
        bk = A(b[e]);
    } else if (l.kind == KBV_CUDA_NORM_GROUP) {
        const int64_t ch = ch0 + (l.spatial == 1 ? e : e / (int)l.spatial);
        wk = A(w[ch]);
        bk = A(b[ch]);
    } else {
        wk = A(1);
        bk = A(0);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
rows_kernel(Layout l, int lanes, const T *__restrict__ x, T *__restrict__ y,
            const T *__restrict__ w, const T *__restrict__ b, double eps, bool vec,
            bool vec_affine)
{
    using V = typename Vec<T>::type;
    using A = acc_t<T>;
    constexpr int W = Vec<T>::width;
    const int sub = (int)threadIdx.x % lanes;
    const int64_t g = (int64_t)blockIdx.x * (kThreads / lanes) + threadIdx.x / lanes;
    /* every lane takes part in the shuffles; lanes past the last group sum nothing */
    const bool live = g < l.groups;
    const int64_t at = live ? g * l.run : 0;
    const double shift = live ? (double)(acc_t<T>)x[at] : 0.0;
    double s1 = 0.0, s2 = 0.0;
    const int64_t nv = l.run / W;
    if (live && vec) {
        const V *v = reinterpret_cast<const V *>(x + at);
        const A tshift = (A)shift; /* exact: the shift is an element */
        for (int64_t i = sub; i < nv; i += lanes) {
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
    } else if (live) {
        for (int64_t i = sub; i < l.run; i += lanes) {
            double d = (double)(acc_t<T>)x[at + i] - shift;
            s1 += d;
            s2 += d * d;
        }
    }
    /* partners add the same two values, so all of a group's lanes agree bit for bit */
    for (int off = lanes / 2; off > 0; off /= 2) {
        s1 += __shfl_xor_sync(0xffffffffu, s1, off);
        s2 += __shfl_xor_sync(0xffffffffu, s2, off);
    }
    if (!live)
        return;
    const double2 st = stats_of(s1, s2, (double)l.run, shift, eps);
    const A mean = (A)st.x, invstd = (A)st.y;
    const int64_t ch0 =
        l.kind == KBV_CUDA_NORM_GROUP ? (g % (l.channels / l.per_group)) * l.per_group : 0;
    /* one channel across the group (instance norm, group norm of one channel
     * per group): y = x * alpha + beta, as the chunks path */
    const bool uniform = l.kind == KBV_CUDA_NORM_INSTANCE ||
                         (l.kind == KBV_CUDA_NORM_GROUP && l.per_group == 1);
    if (uniform) {
        A wk = A(1), bk = A(0);
        row_affine(l, ch0, 0, w, b, wk, bk);
        const A alpha = invstd * wk, beta = bk - mean * alpha;
        if (vec) {
            const V *xv = reinterpret_cast<const V *>(x + at);
            V *yv = reinterpret_cast<V *>(y + at);
            for (int64_t i = sub; i < nv; i += lanes) {
                V a = xv[i];
#pragma unroll
                for (int k = 0; k < W; k++)
                    lane<V, T>(a, k) = T(A(lane<V, T>(a, k)) * alpha + beta);
                yv[i] = a;
            }
        } else {
            for (int64_t i = sub; i < l.run; i += lanes)
                y[at + i] = T(A(x[at + i]) * alpha + beta);
        }
    } else if (vec) {
        const V *xv = reinterpret_cast<const V *>(x + at);
        V *yv = reinterpret_cast<V *>(y + at);
        for (int64_t i = sub; i < nv; i += lanes) {
            V a = xv[i];
            if (vec_affine) { /* w and b run along the group, element for element */
                V ww = reinterpret_cast<const V *>(w + ch0)[i];
                V bb = reinterpret_cast<const V *>(b + ch0)[i];
#pragma unroll
                for (int k = 0; k < W; k++)
                    lane<V, T>(a, k) = T((A(lane<V, T>(a, k)) - mean) * invstd *
                                             A(lane<V, T>(ww, k)) +
                                         A(lane<V, T>(bb, k)));
            } else {
#pragma unroll
                for (int k = 0; k < W; k++) {
                    A wk = A(1), bk = A(0);
                    row_affine(l, ch0, (int)i * W + k, w, b, wk, bk);
                    lane<V, T>(a, k) = T((A(lane<V, T>(a, k)) - mean) * invstd * wk + bk);
                }
            }
            yv[i] = a;
        }
    } else {
        for (int64_t i = sub; i < l.run; i += lanes) {
            A wk = A(1), bk = A(0);
            row_affine(l, ch0, (int)i, w, b, wk, bk);
            y[at + i] = T((A(x[at + i]) - mean) * invstd * wk + bk);
        }
    }
}

template <typename T>
cudaError_t launch(cudaStream_t s, const Layout &l, const T *x, T *y, const T *w, const T *b,
                   double eps)
{
    constexpr int W = Vec<T>::width;
    /* 16-byte path: every group starts 16-byte aligned */
    const bool vec = aligned16(x) && aligned16(y) && l.run % W == 0;
    /* w and b as 16-byte vectors along the group: layer norm's row, or group
     * norm of one element per channel (a [N, C] input) */
    const bool along = l.kind == KBV_CUDA_NORM_LAYER ||
                       (l.kind == KBV_CUDA_NORM_GROUP && l.spatial == 1 && l.per_group % W == 0);
    const bool vec_affine = vec && along && aligned16(w) && aligned16(b);
    const int lanes = lanes_for(l.run, vec ? W : 1);
    const int64_t per_block = kThreads / lanes;
    const int64_t blocks = (l.groups + per_block - 1) / per_block;
    if (blocks > 0x7fffffff)
        return cudaErrorInvalidValue;
    rows_kernel<T><<<(unsigned)blocks, kThreads, 0, s>>>(l, lanes, x, y, w, b, eps, vec,
                                                         vec_affine);
    return cudaGetLastError();
}

} /* namespace */

bool rows_fit(const Layout &l)
{
    return l.kind != KBV_CUDA_NORM_BATCH && l.count == 1 && l.run <= kRowsMaxRun;
}

cudaError_t launch_rows(cudaStream_t s, const Layout &l, int ft, const void *x, void *y,
                        const void *w, const void *b, double eps)
{
    if (ft == KIND_BF16)
        return launch<bf16>(s, l, (const bf16 *)x, (bf16 *)y, (const bf16 *)w,
                            (const bf16 *)b, eps);
    if (ft == KIND_F64)
        return launch<double>(s, l, (const double *)x, (double *)y, (const double *)w,
                              (const double *)b, eps);
    return launch<float>(s, l, (const float *)x, (float *)y, (const float *)w,
                         (const float *)b, eps);
}

} /* namespace kbv_norm */
