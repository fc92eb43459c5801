/* Max and average pooling in one, two or three spatial dims.
 *
 * Both reductions are separable, so each output row (a plane and an output
 * depth and height index) is computed in two steps by a group of threads:
 * first every input column the row's windows touch is reduced over the
 * window's (depth, height) taps into shared memory, with coalesced loads
 * along the input rows, kCols columns per thread at a time so that many
 * loads are in flight; then every output element reduces its window's
 * columns from shared memory. Each needed input element is loaded once per
 * output row, and overlapping windows (stride < kernel) share the loads.
 * Long rows are cut into tiles of at most kSpanMax staged columns. Index
 * math is 32-bit within a plane, with divisions by launch-wide constants
 * done by multiplication (cuda_fastdiv.h): 64-bit divisions per thread
 * would cost more than the pooling itself.
 *
 * A second, direct kernel computes one output element per thread, looping
 * over its window's taps with loads from L1/L2; which one runs is
 * pool_pick_algo's choice.
 *
 * Semantics are PyTorch's CUDA kernels': max pooling treats padding as -inf
 * and lets a NaN win; average pooling sums in the element type over the
 * window clipped to the input and divides by the window's size clipped to
 * the padded input (count_include_pad) or to the input. */
#include <limits.h>
#include <math.h>

#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_fastdiv.h"

using kbv_cuda::acc_t;
using kbv_cuda::bf16;
using kbv_cuda::FastDiv;
using kbv_cuda::KIND_BF16;
using kbv_cuda::KIND_F64;
using kbv_cuda::ldg;

namespace {

constexpr int kThreads = 256;
constexpr int kCols = 4;                          /* staged columns a thread loads at once */
constexpr int kSpanMax = kCols * kThreads;        /* staged input columns per tile */
constexpr size_t kSmemMax = 48 * 1024;            /* without opting in to more */

/* The launch's geometry, all within 32 bits (checked on the host). */
struct Geom {
    int in0, in1, in2, out0, out1, out2;
    int k0, k1, k2, s0, s1, s2, p0, p1, p2, d0, d1, d2;
    int tiles, tile_out, span, tpr, groups, items;
    int count_include_pad;
    long long plane_in, plane_out;    /* elements per plane */
    FastDiv by_tiles, by_out1, by_out0, by_tpr;
};

/* The window's extents in g's leading int fields (Geom, DirectGeom). */
template <typename G> void set_window(G &g, const kbv_cuda_window *w)
{
    g.in0 = (int)w->in[0], g.in1 = (int)w->in[1], g.in2 = (int)w->in[2];
    g.out0 = (int)w->out[0], g.out1 = (int)w->out[1], g.out2 = (int)w->out[2];
    g.k0 = (int)w->k[0], g.k1 = (int)w->k[1], g.k2 = (int)w->k[2];
    g.s0 = (int)w->stride[0], g.s1 = (int)w->stride[1], g.s2 = (int)w->stride[2];
    g.p0 = (int)w->pad[0], g.p1 = (int)w->pad[1], g.p2 = (int)w->pad[2];
    g.d0 = (int)w->dil[0], g.d1 = (int)w->dil[1], g.d2 = (int)w->dil[2];
}

template <typename T> __device__ __forceinline__ T lowest() { return -INFINITY; }

template <typename T, bool IS_MAX> __device__ __forceinline__ T combine(T acc, T v)
{
    if (IS_MAX)
        return (v > acc || isnan(v)) ? v : acc;
    return acc + v;
}

/* First and one-past-last tap k (< count) whose index start + k * dil lies
 * in [0, len). */
__device__ __forceinline__ void valid_taps(int start, int count, int dil, int len, int &lo,
                                           int &hi)
{
    lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
    hi = start > len - 1 ? 0 : (len - 1 - start) / dil + 1;
    hi = hi < count ? hi : count;
    lo = lo < hi ? lo : hi;
}

/* One group of g.tpr threads per (output row, column tile); g.groups groups
 * per block, each with g.span elements of shared memory. */
template <typename T, bool IS_MAX>
__global__ void __launch_bounds__(kThreads) pool_rows(const T *__restrict__ x, T *__restrict__ y,
                                                      Geom g)
{
    using A = acc_t<T>;   /* sums and maxima in the opmath type (float for bf16) */
    extern __shared__ unsigned char smem_raw[];
    const unsigned group = g.by_tpr.div(threadIdx.x);
    const int t = (int)g.by_tpr.mod(threadIdx.x, group);
    A *col = reinterpret_cast<A *>(smem_raw) + group * g.span;
    const unsigned item = blockIdx.x * (unsigned)g.groups + group;
    const bool active = item < (unsigned)g.items;

    const unsigned row = g.by_tiles.div(active ? item : 0u);
    const int tile = (int)g.by_tiles.mod(active ? item : 0u, row);
    const unsigned r1 = g.by_out1.div(row);
    const int oh = (int)g.by_out1.mod(row, r1);
    const unsigned plane = g.by_out0.div(r1);
    const int od = (int)g.by_out0.mod(r1, plane);
    const int ow0 = tile * g.tile_out;
    const int ow1 = min(ow0 + g.tile_out, g.out2);
    const int iw0 = ow0 * g.s2 - g.p2;
    const int ncols = (ow1 - ow0 - 1) * g.s2 + (g.k2 - 1) * g.d2 + 1;
    const int d_start = od * g.s0 - g.p0, h_start = oh * g.s1 - g.p1;
    int kd0, kd1, kh0, kh1;
    valid_taps(d_start, g.k0, g.d0, g.in0, kd0, kd1);
    valid_taps(h_start, g.k1, g.d1, g.in1, kh0, kh1);
    const T *xp = x + (long long)plane * g.plane_in;
    const int row_step = g.d1 * g.in2;

    if (active) {
        for (int base = t; base < ncols; base += kCols * g.tpr) {
            A acc[kCols];
            bool inside[kCols];
#pragma unroll
            for (int j = 0; j < kCols; j++) {
                const int c = base + j * g.tpr, iw = iw0 + c;
                inside[j] = c < ncols && iw >= 0 && iw < g.in2;
                acc[j] = IS_MAX ? lowest<A>() : A(0);
            }
            for (int kd = kd0; kd < kd1; kd++) {
                int off = ((d_start + kd * g.d0) * g.in1 + h_start + kh0 * g.d1) * g.in2 + iw0 +
                          base;
#pragma unroll 2
                for (int kh = kh0; kh < kh1; kh++, off += row_step) {
#pragma unroll
                    for (int j = 0; j < kCols; j++)
                        if (inside[j])
                            acc[j] = combine<A, IS_MAX>(acc[j], A(ldg(xp + off + j * g.tpr)));
                }
            }
#pragma unroll
            for (int j = 0; j < kCols; j++)
                if (base + j * g.tpr < ncols)
                    col[base + j * g.tpr] = acc[j];
        }
    }
    __syncthreads();
    if (!active)
        return;

    int pool_dh = 1, valid_dh = 1;
    if (!IS_MAX) {
        /* the window clipped to the padded input, then to the input */
        const int d_end = min(d_start + g.k0, g.in0 + g.p0);
        const int h_end = min(h_start + g.k1, g.in1 + g.p1);
        pool_dh = (d_end - d_start) * (h_end - h_start);
        valid_dh = (kd1 - kd0) * (kh1 - kh0);
    }
    T *yr = y + (long long)plane * g.plane_out + (od * g.out1 + oh) * g.out2;
    for (int ow = ow0 + t; ow < ow1; ow += g.tpr) {
        const int c0 = (ow - ow0) * g.s2;
        A acc = IS_MAX ? lowest<A>() : A(0);
        for (int kw = 0; kw < g.k2; kw++)
            acc = combine<A, IS_MAX>(acc, col[c0 + kw * g.d2]);
        if (!IS_MAX) {
            const int w_start = ow * g.s2 - g.p2;
            const int w_end = min(w_start + g.k2, g.in2 + g.p2);
            const int valid_w = min(w_end, g.in2) - max(w_start, 0);
            if (valid_dh <= 0 || valid_w <= 0)
                acc = A(0);
            else
                acc = acc / A(g.count_include_pad ? pool_dh * (w_end - w_start)
                                                  : valid_dh * valid_w);
        }
        yr[ow] = T(acc);
    }
}

template <typename T, bool IS_MAX>
cudaError_t launch_rows(cudaStream_t s, int count_include_pad, const kbv_cuda_window *w,
                        int64_t planes, const void *x, void *y)
{
    const int64_t eff_w = (w->k[2] - 1) * w->dil[2] + 1;
    const int64_t full_span = (w->out[2] - 1) * w->stride[2] + eff_w;
    int64_t tile_out = w->out[2];
    if (full_span > kSpanMax)
        tile_out = eff_w >= kSpanMax ? 1 : (kSpanMax - eff_w) / w->stride[2] + 1;
    const int64_t span = (tile_out - 1) * w->stride[2] + eff_w;
    const int64_t tiles = (w->out[2] + tile_out - 1) / tile_out;
    int tpr = 32; /* at most kCols staged columns per thread where the tile allows */
    while (tpr < kThreads && (int64_t)tpr * kCols < span)
        tpr *= 2;
    const int groups = kThreads / tpr;
    const size_t smem = (size_t)groups * (size_t)span * sizeof(acc_t<T>);
    const int64_t plane_in = w->in[0] * w->in[1] * w->in[2];
    const int64_t plane_out = w->out[0] * w->out[1] * w->out[2];
    const int64_t items = planes * w->out[0] * w->out[1] * tiles;
    if (items == 0)
        return cudaSuccess;
    /* 32-bit index math: planes and the item count must fit (with room for
     * the tap offsets past a plane's end that are never loaded) */
    if (smem > kSmemMax || items >= INT_MAX || plane_in >= INT_MAX / 2 ||
        plane_out >= INT_MAX / 2 || span >= INT_MAX / 4)
        return cudaErrorInvalidValue;
    Geom g;
    set_window(g, w);
    g.tiles = (int)tiles, g.tile_out = (int)tile_out, g.span = (int)span;
    g.tpr = tpr, g.groups = groups, g.items = (int)items;
    g.count_include_pad = count_include_pad;
    g.plane_in = plane_in, g.plane_out = plane_out;
    g.by_tiles = FastDiv((unsigned)tiles);
    g.by_out1 = FastDiv((unsigned)w->out[1]);
    g.by_out0 = FastDiv((unsigned)w->out[0]);
    g.by_tpr = FastDiv((unsigned)tpr);
    const int64_t blocks = (items + groups - 1) / groups;
    pool_rows<T, IS_MAX><<<(unsigned)blocks, kThreads, smem, s>>>(
        static_cast<const T *>(x), static_cast<T *>(y), g);
    return cudaGetLastError();
}

/* ---- the direct kernel ---- */

constexpr int kDirectThreads = 256;

/* A direct launch's geometry: the planes of one launch hold fewer than 2^31
 * outputs, so an output's flat index decodes in 32 bits. */
struct DirectGeom {
    int in0, in1, in2, out0, out1, out2;
    int k0, k1, k2, s0, s1, s2, p0, p1, p2, d0, d1, d2;
    int items, count_include_pad;
    long long plane_in;
    FastDiv by_out2, by_out1, by_out0;
};

/* One thread per output element. The taps along the row (kw) are unrolled
 * up to KW (a compile-time bound on k2; 0: a run-time loop) so that a
 * window row's loads are all in flight at once; DIL1 says the row's taps
 * are adjacent (dilation 1, every average pooling), which makes them
 * constant offsets from one address and keeps registers for loads. Each kw
 * keeps its own partial over the (kd, kh) taps and the partials are
 * combined in kw order last: the rows kernel's order, so the two kernels
 * agree bit for bit. */
template <typename T, bool IS_MAX, int KW, bool DIL1>
__global__ void __launch_bounds__(kDirectThreads)
pool_direct(const T *__restrict__ x, T *__restrict__ y, DirectGeom g)
{
    const unsigned item = blockIdx.x * (unsigned)kDirectThreads + threadIdx.x;
    if (item >= (unsigned)g.items)
        return;
    const unsigned r2 = g.by_out2.div(item);
    const int ow = (int)g.by_out2.mod(item, r2);
    const unsigned r1 = g.by_out1.div(r2);
    const int oh = (int)g.by_out1.mod(r2, r1);
    const unsigned plane = g.by_out0.div(r1);
    const int od = (int)g.by_out0.mod(r1, plane);
    const int d_start = od * g.s0 - g.p0, h_start = oh * g.s1 - g.p1, w_start = ow * g.s2 - g.p2;
    int kd0, kd1, kh0, kh1, kw0, kw1;
    valid_taps(d_start, g.k0, g.d0, g.in0, kd0, kd1);
    valid_taps(h_start, g.k1, g.d1, g.in1, kh0, kh1);
    valid_taps(w_start, g.k2, g.d2, g.in2, kw0, kw1);
    using A = acc_t<T>;
    const T *xp = x + (long long)plane * g.plane_in;
    const A init = IS_MAX ? lowest<A>() : A(0);

    A acc = init;
    if (KW > 0) {
        A part[KW > 0 ? KW : 1];
#pragma unroll
        for (int kw = 0; kw < KW; kw++)
            part[kw] = init;
        for (int kd = kd0; kd < kd1; kd++) {
            for (int kh = kh0; kh < kh1; kh++) {
                /* tap (kd, kh, 0), which may lie left of the row: only valid taps load */
                const T *row =
                    xp + (((d_start + kd * g.d0) * g.in1 + h_start + kh * g.d1) * g.in2 + w_start);
                const int step = DIL1 ? 1 : g.d2;
#pragma unroll
                for (int kw = 0; kw < KW; kw++)
                    if (kw >= kw0 && kw < kw1)
                        part[kw] = combine<A, IS_MAX>(part[kw], A(ldg(row + kw * step)));
            }
        }
#pragma unroll
        for (int kw = 0; kw < KW; kw++)
            acc = combine<A, IS_MAX>(acc, part[kw]);
    } else {
        for (int kw = kw0; kw < kw1; kw++) {
            A part = init;
            for (int kd = kd0; kd < kd1; kd++)
                for (int kh = kh0; kh < kh1; kh++)
                    part = combine<A, IS_MAX>(
                        part, A(ldg(xp + (((d_start + kd * g.d0) * g.in1 + h_start + kh * g.d1) *
                                              g.in2 +
                                          w_start + kw * g.d2))));
            acc = combine<A, IS_MAX>(acc, part);
        }
    }
    if (!IS_MAX) { /* the rows kernel's divisor, term for term */
        const int d_end = min(d_start + g.k0, g.in0 + g.p0);
        const int h_end = min(h_start + g.k1, g.in1 + g.p1);
        const int w_end = min(w_start + g.k2, g.in2 + g.p2);
        const int pool_dh = (d_end - d_start) * (h_end - h_start);
        const int valid_dh = (kd1 - kd0) * (kh1 - kh0);
        const int valid_w = min(w_end, g.in2) - max(w_start, 0);
        if (valid_dh <= 0 || valid_w <= 0)
            acc = A(0);
        else
            acc = acc / A(g.count_include_pad ? pool_dh * (w_end - w_start) : valid_dh * valid_w);
    }
    y[item] = T(acc);
}

template <typename T, bool IS_MAX>
cudaError_t launch_direct(cudaStream_t s, int count_include_pad, const kbv_cuda_window *w,
                          int64_t planes, const void *x, void *y)
{
    const int64_t plane_in = w->in[0] * w->in[1] * w->in[2];
    const int64_t plane_out = w->out[0] * w->out[1] * w->out[2];
    if (planes == 0 || plane_out == 0)
        return cudaSuccess;
    /* 32-bit offsets within a plane, taps (valid or not) included */
    for (int d = 0; d < 3; d++)
        if ((w->k[d] - 1) * w->dil[d] + w->in[d] + w->pad[d] >= INT_MAX / 4 ||
            w->out[d] * w->stride[d] >= INT_MAX / 4)
            return cudaErrorInvalidValue;
    if (plane_in >= INT_MAX / 2 || plane_out >= INT_MAX / 2)
        return cudaErrorInvalidValue;
    DirectGeom g;
    set_window(g, w);
    g.count_include_pad = count_include_pad;
    g.plane_in = plane_in;
    g.by_out2 = FastDiv((unsigned)w->out[2]);
    g.by_out1 = FastDiv((unsigned)w->out[1]);
    g.by_out0 = FastDiv((unsigned)w->out[0]);
    void (*kernel)(const T *, T *, DirectGeom) = pool_direct<T, IS_MAX, 0, false>;
    if (w->dil[2] == 1)
        kernel = w->k[2] <= 4    ? pool_direct<T, IS_MAX, 4, true>
                 : w->k[2] <= 8  ? pool_direct<T, IS_MAX, 8, true>
                 : w->k[2] <= 16 ? pool_direct<T, IS_MAX, 16, true>
                                 : kernel;
    else if constexpr (IS_MAX) /* average pooling has no dilation */
        kernel = w->k[2] <= 4   ? pool_direct<T, IS_MAX, 4, false>
                 : w->k[2] <= 8 ? pool_direct<T, IS_MAX, 8, false>
                                : kernel;
    /* fewer than 2^31 outputs per launch (FastDiv's domain) */
    const int64_t chunk = (INT_MAX - kDirectThreads) / plane_out;
    const T *xs = static_cast<const T *>(x);
    T *ys = static_cast<T *>(y);
    for (int64_t p0 = 0; p0 < planes; p0 += chunk) {
        const int64_t n = planes - p0 < chunk ? planes - p0 : chunk;
        g.items = (int)(n * plane_out);
        const unsigned blocks = (unsigned)((g.items + kDirectThreads - 1) / kDirectThreads);
        kernel<<<blocks, kDirectThreads, 0, s>>>(xs + p0 * plane_in, ys + p0 * plane_out, g);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

template <typename T, bool IS_MAX>
cudaError_t launch(cudaStream_t s, int count_include_pad, const kbv_cuda_window *w,
                   int64_t planes, const void *x, void *y, int algo)
{
    switch (algo) {
    case KBV_CUDA_POOL_ROWS: return launch_rows<T, IS_MAX>(s, count_include_pad, w, planes, x, y);
    case KBV_CUDA_POOL_DIRECT:
        return launch_direct<T, IS_MAX>(s, count_include_pad, w, planes, x, y);
    default: return cudaErrorInvalidValue;
    }
}

/* The kernel for a pooling, from bench/probes/pool_reduce_variants.cu on an
 * H200 (full-size L1/41-46): with stride 1 the rows kernel loads each input
 * column once for k overlapping windows and is 1.4-2x faster (41, 42, 44);
 * with a larger stride there is little overlap to share and one thread per
 * output is faster (43: 1.47x, 45: 1.13x, 46: 1.08x). */
int pool_pick_algo(int is_max, const kbv_cuda_window *w)
{
    (void)is_max;
    return w->stride[2] > 1 ? KBV_CUDA_POOL_DIRECT : KBV_CUDA_POOL_ROWS;
}

} // namespace

extern "C" cudaError_t kbv_cuda_launch_pool_algo(cudaStream_t s, int is_max, int kind,
                                                 int count_include_pad,
                                                 const kbv_cuda_window *w, int64_t planes,
                                                 const void *x, void *y, int algo)
{
    if (kind == KIND_BF16)
        return is_max ? launch<bf16, true>(s, count_include_pad, w, planes, x, y, algo)
                      : launch<bf16, false>(s, count_include_pad, w, planes, x, y, algo);
    if (kind == KIND_F64)
        return is_max ? launch<double, true>(s, count_include_pad, w, planes, x, y, algo)
                      : launch<double, false>(s, count_include_pad, w, planes, x, y, algo);
    return is_max ? launch<float, true>(s, count_include_pad, w, planes, x, y, algo)
                  : launch<float, false>(s, count_include_pad, w, planes, x, y, algo);
}

extern "C" cudaError_t kbv_cuda_launch_pool(cudaStream_t s, int is_max, int kind,
                                            int count_include_pad, const kbv_cuda_window *w,
                                            int64_t planes, const void *x, void *y)
{
    return kbv_cuda_launch_pool_algo(s, is_max, kind, count_include_pad, w, planes, x, y,
                                     pool_pick_algo(is_max, w));
}
