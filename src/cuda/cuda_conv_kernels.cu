/* The convolution kernels kbv runs itself: depthwise convolution (PyTorch
 * runs float and double depthwise convolutions in its own kernels rather
 * than cuDNN) and the bias add that follows a cuDNN convolution.
 *
 * Depthwise: a block computes a tile of kTileH x kTileW outputs of one
 * output plane at one output depth. It stages the input tile its windows
 * cover in shared memory (zeros for the padding) one input depth slice at
 * a time, so each input element is loaded from memory about once per tile,
 * and every thread accumulates kRows outputs of one column from shared
 * memory. Tiles whose staged input would not fit fall back to a kernel
 * that reads every tap from global memory. Sums accumulate in acc_t<T>:
 * the element type for float and double, float for bfloat16, as PyTorch's
 * depthwise kernels do (their accscalar_t); a bfloat16 output is rounded
 * once. */
#include <limits.h>

#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_fastdiv.h"

using kbv_cuda::FastDiv;
using kbv_cuda::acc_t;
using kbv_cuda::bf16;
using kbv_cuda::ldg;

namespace {

constexpr int kTileW = 32;               /* threads across a tile row */
constexpr int kThreadRows = 8;           /* thread rows per block */
constexpr size_t kSmemMax = 40 * 1024;   /* staged input and weights */

/* The launch's geometry, 32-bit within a plane (checked on the host). */
struct DwGeom {
    int in0, in1, in2, out0, out1, out2;
    int k0, k1, k2, s0, s1, s2, p0, p1, p2, d0, d1, d2;
    int channels, multiplier, cout, taps;
    int tiles_h, tiles_w, rows_in, cols_in;
    long long plane_in, plane_out;
    FastDiv by_tiles_w, by_tiles_h, by_out0, by_cout, by_multiplier;
};

template <typename T, int ROWS>
__global__ void __launch_bounds__(kTileW *kThreadRows)
    depthwise_tiled(const T *__restrict__ x, const T *__restrict__ wt, const T *__restrict__ bias,
                    T *__restrict__ y, DwGeom g)
{
    extern __shared__ unsigned char smem_raw[];
    T *wsh = reinterpret_cast<T *>(smem_raw);
    T *tile = wsh + g.taps;
    const int tx = threadIdx.x % kTileW, ty = threadIdx.x / kTileW;

    unsigned b = blockIdx.x, q = g.by_tiles_w.div(b);
    const int tw = (int)g.by_tiles_w.mod(b, q);
    b = q;
    q = g.by_tiles_h.div(b);
    const int th = (int)g.by_tiles_h.mod(b, q);
    b = q;
    q = g.by_out0.div(b);
    const int od = (int)g.by_out0.mod(b, q);
    const unsigned plane = q; /* n * C_out + oc */
    const unsigned n = g.by_cout.div(plane);
    const int oc = (int)g.by_cout.mod(plane, n);
    const int ic = (int)g.by_multiplier.div((unsigned)oc);
    const int oh0 = th * kThreadRows * ROWS, ow0 = tw * kTileW;
    const int ih0 = oh0 * g.s1 - g.p1, iw0 = ow0 * g.s2 - g.p2;
    const T *xc = x + ((long long)n * g.channels + ic) * g.plane_in;

    for (int i = threadIdx.x; i < g.taps; i += blockDim.x)
        wsh[i] = wt[(long long)oc * g.taps + i];
    using A = acc_t<T>;
    A acc[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        acc[r] = bias ? A(bias[oc]) : A(0);

    for (int kd = 0; kd < g.k0; kd++) {
        const int id = od * g.s0 - g.p0 + kd * g.d0;
        if (id < 0 || id >= g.in0)
            continue; /* the same for the whole block: no divergence at the barriers */
        __syncthreads(); /* the previous slice has been used */
        const T *xs = xc + id * g.in1 * g.in2;
        for (int r = ty; r < g.rows_in; r += kThreadRows) {
            const int ih = ih0 + r;
            const bool row_in = ih >= 0 && ih < g.in1;
            for (int c = tx; c < g.cols_in; c += kTileW) {
                const int iw = iw0 + c;
                tile[r * g.cols_in + c] =
                    row_in && iw >= 0 && iw < g.in2 ? ldg(xs + ih * g.in2 + iw) : T(0);
            }
        }
        __syncthreads();
        const T *wk = wsh + kd * g.k1 * g.k2;
        for (int kh = 0; kh < g.k1; kh++)
            for (int kw = 0; kw < g.k2; kw++) {
                const A wv = A(wk[kh * g.k2 + kw]);
                const T *src = tile + (ty * ROWS * g.s1 + kh * g.d1) * g.cols_in + tx * g.s2 +
                               kw * g.d2;
#pragma unroll
                for (int r = 0; r < ROWS; r++)
                    acc[r] += wv * A(src[r * g.s1 * g.cols_in]);
            }
    }
    const int ow = ow0 + tx;
    if (ow >= g.out2)
        return;
    T *yp = y + (long long)plane * g.plane_out + od * g.out1 * g.out2;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        const int oh = oh0 + ty * ROWS + r;
        if (oh < g.out1)
            yp[oh * g.out2 + ow] = T(acc[r]);
    }
}

/* One thread per output, every tap from global memory: for windows too
 * wide to stage. */
template <typename T>
__global__ void depthwise_direct(const T *__restrict__ x, const T *__restrict__ wt,
                                 const T *__restrict__ bias, T *__restrict__ y,
                                 kbv_cuda_window w, int64_t channels, int64_t multiplier,
                                 int64_t total)
{
    const int64_t taps = w.k[0] * w.k[1] * w.k[2];
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i;
        const int64_t ow = r % w.out[2];
        r /= w.out[2];
        const int64_t oh = r % w.out[1];
        r /= w.out[1];
        const int64_t od = r % w.out[0];
        const int64_t plane = r / w.out[0];
        const int64_t oc = plane % (channels * multiplier), n = plane / (channels * multiplier);
        const T *xc = x + (n * channels + oc / multiplier) * w.in[0] * w.in[1] * w.in[2];
        const T *wk = wt + oc * taps;
        using A = acc_t<T>;
        A acc = bias ? A(bias[oc]) : A(0);
        for (int64_t kd = 0; kd < w.k[0]; kd++) {
            const int64_t id = od * w.stride[0] - w.pad[0] + kd * w.dil[0];
            if (id < 0 || id >= w.in[0])
                continue;
            for (int64_t kh = 0; kh < w.k[1]; kh++) {
                const int64_t ih = oh * w.stride[1] - w.pad[1] + kh * w.dil[1];
                if (ih < 0 || ih >= w.in[1])
                    continue;
                for (int64_t kw = 0; kw < w.k[2]; kw++) {
                    const int64_t iw = ow * w.stride[2] - w.pad[2] + kw * w.dil[2];
                    if (iw >= 0 && iw < w.in[2])
                        acc += A(wk[(kd * w.k[1] + kh) * w.k[2] + kw]) *
                               A(ldg(xc + (id * w.in[1] + ih) * w.in[2] + iw));
                }
            }
        }
        y[i] = T(acc);
    }
}

template <typename T, int ROWS>
bool try_tiled(cudaStream_t s, const kbv_cuda_window *w, int64_t batch, int64_t channels,
               int64_t multiplier, const T *x, const T *wt, const T *bias, T *y,
               cudaError_t *err)
{
    const int64_t th = kThreadRows * ROWS;
    const int64_t rows_in = (th - 1) * w->stride[1] + (w->k[1] - 1) * w->dil[1] + 1;
    const int64_t cols_in = (kTileW - 1) * w->stride[2] + (w->k[2] - 1) * w->dil[2] + 1;
    const int64_t taps = w->k[0] * w->k[1] * w->k[2];
    const size_t smem = (size_t)(rows_in * cols_in + taps) * sizeof(T);
    const int64_t tiles_h = (w->out[1] + th - 1) / th, tiles_w = (w->out[2] + kTileW - 1) / kTileW;
    const int64_t cout = channels * multiplier;
    const int64_t blocks = batch * cout * w->out[0] * tiles_h * tiles_w;
    const int64_t plane_in = w->in[0] * w->in[1] * w->in[2];
    const int64_t plane_out = w->out[0] * w->out[1] * w->out[2];
    /* 32-bit index math within a plane and for the block index */
    if (smem > kSmemMax || blocks >= INT_MAX || plane_in >= INT_MAX / 2 ||
        plane_out >= INT_MAX / 2 || batch * cout >= INT_MAX)
        return false;
    DwGeom g;
    g.in0 = (int)w->in[0], g.in1 = (int)w->in[1], g.in2 = (int)w->in[2];
    g.out0 = (int)w->out[0], g.out1 = (int)w->out[1], g.out2 = (int)w->out[2];
    g.k0 = (int)w->k[0], g.k1 = (int)w->k[1], g.k2 = (int)w->k[2];
    g.s0 = (int)w->stride[0], g.s1 = (int)w->stride[1], g.s2 = (int)w->stride[2];
    g.p0 = (int)w->pad[0], g.p1 = (int)w->pad[1], g.p2 = (int)w->pad[2];
    g.d0 = (int)w->dil[0], g.d1 = (int)w->dil[1], g.d2 = (int)w->dil[2];
    g.channels = (int)channels, g.multiplier = (int)multiplier, g.cout = (int)cout;
    g.taps = (int)taps;
    g.tiles_h = (int)tiles_h, g.tiles_w = (int)tiles_w;
    g.rows_in = (int)rows_in, g.cols_in = (int)cols_in;
    g.plane_in = plane_in, g.plane_out = plane_out;
    g.by_tiles_w = FastDiv((unsigned)tiles_w);
    g.by_tiles_h = FastDiv((unsigned)tiles_h);
    g.by_out0 = FastDiv((unsigned)w->out[0]);
    g.by_cout = FastDiv((unsigned)cout);
    g.by_multiplier = FastDiv((unsigned)multiplier);
    depthwise_tiled<T, ROWS><<<(unsigned)blocks, kTileW * kThreadRows, smem, s>>>(x, wt, bias,
                                                                                 y, g);
    *err = cudaGetLastError();
    return true;
}

template <typename T>
cudaError_t launch_depthwise(cudaStream_t s, const kbv_cuda_window *w, int64_t batch,
                             int64_t channels, int64_t multiplier, const void *xv,
                             const void *wv, const void *bv, void *yv)
{
    const T *x = static_cast<const T *>(xv), *wt = static_cast<const T *>(wv);
    const T *bias = static_cast<const T *>(bv);
    T *y = static_cast<T *>(yv);
    const int64_t total = batch * channels * multiplier * w->out[0] * w->out[1] * w->out[2];
    if (total == 0)
        return cudaSuccess;
    cudaError_t err = cudaSuccess;
    /* 4 rows per thread for tall outputs; 1 where the output is short */
    if (w->out[1] >= 4 * kThreadRows && try_tiled<T, 4>(s, w, batch, channels, multiplier, x,
                                                         wt, bias, y, &err))
        return err;
    if (try_tiled<T, 1>(s, w, batch, channels, multiplier, x, wt, bias, y, &err))
        return err;
    const int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 64)
        blocks = 65535 * 64;
    depthwise_direct<T><<<(unsigned)blocks, threads, 0, s>>>(x, wt, bias, y, *w, channels,
                                                              multiplier, total);
    return cudaGetLastError();
}

/* One bias value per plane of `inner` elements: blocks walk planes along y
 * and each plane's elements along x, so no element needs a division. For
 * tensors of 2^31 elements or more. */
template <typename T>
__global__ void bias_add(T *__restrict__ y, const T *__restrict__ b, int64_t channels,
                         int64_t inner, int64_t planes)
{
    for (int64_t p = blockIdx.y; p < planes; p += gridDim.y) {
        const acc_t<T> v = acc_t<T>(b[p % channels]);
        T *yp = y + p * inner;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < inner;
             i += (int64_t)gridDim.x * blockDim.x)
            yp[i] = T(acc_t<T>(yp[i]) + v);
    }
}

/* The same over the flat tensor, one 16-byte vector per thread, each
 * element's channel from two multiply-shift divisions: planes of an odd
 * size (L1/50's 55 x 55) leave the per-plane kernel's blocks short and its
 * rows unaligned (0.45 ms against PyTorch's 0.23 ms for [256, 96, 55, 55]
 * on an H200). y is 16-byte aligned; n < 2^31. */
template <typename T> struct alignas(16) Pack {
    T v[16 / sizeof(T)];
};

template <typename T>
__global__ void __launch_bounds__(256)
bias_add_flat(T *__restrict__ y, const T *__restrict__ b, unsigned n, FastDiv inner,
              FastDiv channels)
{
    constexpr unsigned W = 16 / sizeof(T);
    const unsigned vectors = n / W;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < vectors;
         t += gridDim.x * blockDim.x) {
        Pack<T> p = reinterpret_cast<Pack<T> *>(y)[t];
#pragma unroll
        for (unsigned k = 0; k < W; k++) {
            const unsigned plane = inner.div(t * W + k);
            p.v[k] = T(acc_t<T>(p.v[k]) + acc_t<T>(b[channels.mod(plane, channels.div(plane))]));
        }
        reinterpret_cast<Pack<T> *>(y)[t] = p;
    }
    /* the last n % W elements */
    const unsigned i = vectors * W + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned plane = inner.div(i);
        y[i] = T(acc_t<T>(y[i]) + acc_t<T>(b[channels.mod(plane, channels.div(plane))]));
    }
}

} // namespace

/* y = T(float(y) + float(b)) for bfloat16: PyTorch adds the bias after
 * cuDNN with output.add_(bias), one rounding. */
namespace {
template <typename T>
cudaError_t launch_bias_add(cudaStream_t s, int64_t batch, int64_t channels, int64_t inner,
                            const void *bv, void *yv)
{
    const int64_t planes = batch * channels;
    if (planes == 0 || inner == 0)
        return cudaSuccess;
    const int threads = 256;
    const int64_t n = planes * inner;
    T *y = static_cast<T *>(yv);
    const T *b = static_cast<const T *>(bv);
    if (n < INT_MAX && ((uintptr_t)y & 15) == 0) {
        const int64_t vectors = n / (int64_t)(16 / sizeof(T));
        const unsigned grid = (unsigned)((vectors > 0 ? vectors : 1) + threads - 1) / threads;
        const FastDiv in((unsigned)inner), ch((unsigned)channels);
        bias_add_flat<T><<<grid, threads, 0, s>>>(y, b, (unsigned)n, in, ch);
        return cudaGetLastError();
    }
    int64_t bx = (inner + threads - 1) / threads, by = planes;
    if (bx > 1024)
        bx = 1024;
    if (by > 65535)
        by = 65535;
    const dim3 grid((unsigned)bx, (unsigned)by);
    bias_add<T><<<grid, threads, 0, s>>>(y, b, channels, inner, planes);
    return cudaGetLastError();
}
} // namespace

extern "C" cudaError_t kbv_cuda_launch_depthwise(cudaStream_t s, int kind,
                                                 const kbv_cuda_window *w, int64_t batch,
                                                 int64_t channels, int64_t multiplier,
                                                 const void *x, const void *weight,
                                                 const void *bias, void *y)
{
    switch (kind) {
    case kbv_cuda::KIND_F64:
        return launch_depthwise<double>(s, w, batch, channels, multiplier, x, weight, bias, y);
    case kbv_cuda::KIND_BF16:
        return launch_depthwise<bf16>(s, w, batch, channels, multiplier, x, weight, bias, y);
    default:
        return launch_depthwise<float>(s, w, batch, channels, multiplier, x, weight, bias, y);
    }
}

extern "C" cudaError_t kbv_cuda_launch_bias_add(cudaStream_t s, int kind, int64_t batch,
                                                int64_t channels, int64_t inner, const void *b,
                                                void *y)
{
    switch (kind) {
    case kbv_cuda::KIND_F64:
        return launch_bias_add<double>(s, batch, channels, inner, b, y);
    case kbv_cuda::KIND_BF16:
        return launch_bias_add<bf16>(s, batch, channels, inner, b, y);
    default:
        return launch_bias_add<float>(s, batch, channels, inner, b, y);
    }
}
