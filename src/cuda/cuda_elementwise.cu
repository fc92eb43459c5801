/* Elementwise kernels: unary activations, ops with a Python-number constant
 * (clamps, a float32 0-dim constant's minimum/maximum), and binary
 * arithmetic and minimum/maximum with broadcasting. Formulas are PyTorch's CUDA
 * kernels' (ATen/native/cuda/Activation*.cu, BinaryOps), computed in the
 * tensor's opmath type: its own for float and double, float for bfloat16
 * (loaded, computed in float with the op's constants in float, rounded once
 * when stored). */
#include <math.h>

#include "cuda/cuda_device.h"
#include "cuda/cuda_fastdiv.h"
#include "cuda/cuda_offset_calc.h"
#include "graph/ops.h"

using namespace kbv_cuda;

namespace {

/* 128 threads, one block per tile of 128 (or 256) 16-byte vectors, the
 * grid covering the data: the fastest of the shapes measured on an H200
 * (1-8 vectors per thread, 64-512 threads, resident grid-stride loops,
 * streaming cache hints) -- 4.27 TB/s for a copy-like op. */
constexpr int kThreads = 128;

/* Two vectors per thread (two independent chains) where that measured
 * faster on an H200 beside PyTorch: softplus (log1p of exp, 9% faster) and
 * gelu (erf, 2%); one vector is best for every other op. */
template <int OP> __host__ __device__ constexpr int vecs_per_thread()
{
    return OP == KBV_OP_SOFTPLUS || OP == KBV_OP_GELU ? 2 : 1;
}

template <int OP, typename T> __device__ __forceinline__ T unary_op(T x, T p0, T p1)
{
    if constexpr (OP == KBV_OP_ABS) {
        return k_abs(x);
    } else if constexpr (OP == KBV_OP_RELU) { /* clamp_min(x, 0): NaN passes */
        return x != x ? x : k_max(x, T(0));
    } else if constexpr (OP == KBV_OP_LEAKY_RELU) {
        return x > T(0) ? x : x * p0;
    } else if constexpr (OP == KBV_OP_SIGMOID) {
        return T(1) / (T(1) + k_exp(-x));
    } else if constexpr (OP == KBV_OP_TANH) {
        return k_tanh(x);
    } else if constexpr (OP == KBV_OP_GELU) { /* exact: erf form */
        return x * T(0.5) * (T(1) + k_erf(x * T(0.70710678118654752440)));
    } else if constexpr (OP == KBV_OP_SELU) { /* p0 = alpha, p1 = scale; negcoef = alpha * scale in T */
        return x <= T(0) ? k_expm1(x) * (p0 * p1) : x * p1;
    } else if constexpr (OP == KBV_OP_HARDSIGMOID) {
        return k_min(k_max(x + T(3), T(0)), T(6)) * (T(1) / T(6));
    } else if constexpr (OP == KBV_OP_SOFTPLUS) { /* beta 1, threshold 20 */
        return x > T(20) ? x : k_log1p(k_exp(x));
    } else if constexpr (OP == KBV_OP_ELU) { /* p0 = alpha */
        return x <= T(0) ? k_expm1(x) * p0 : x;
    } else if constexpr (OP == KBV_OP_HARDTANH) { /* clamp(x, p0, p1): NaN passes */
        return x != x ? x : k_min(k_max(x, p0), p1);
    } else if constexpr (OP == KBV_OP_ADD_SCALAR) {
        return x + p0;
    } else if constexpr (OP == KBV_OP_MUL_SCALAR) {
        return x * p0;
    } else if constexpr (OP == KBV_OP_CLAMP) { /* clamp_scalar: NaN passes, min > max gives max */
        return x != x ? x : k_min(k_max(x, p0), p1);
    } else if constexpr (OP == KBV_OP_CLAMP_MAX) {
        return x != x ? x : k_min(x, p0);
    } else if constexpr (OP == KBV_OP_SUB_SCALAR) { /* add with alpha -1: x + (-c) */
        return x - p0;
    } else if constexpr (OP == KBV_OP_DIV_SCALAR) { /* p0 = 1 / c: PyTorch's div by a CPU scalar */
        return x * p0;
    } else if constexpr (OP == KBV_OP_MISH) { /* x * tanh(log1p(exp(x))), no threshold */
        return x * k_tanh(k_log1p(k_exp(x)));
    } else if constexpr (OP == KBV_OP_HARDSWISH) { /* x * min(max(x + 3, 0), 6) * (1 / 6) */
        return x * k_min(k_max(x + T(3), T(0)), T(6)) * (T(1) / T(6));
    } else if constexpr (OP == KBV_OP_GELU_TANH) {
        const T beta = T(0.79788456080286535587989211986876), kappa = T(0.044715);
        return T(0.5) * x * (T(1) + k_tanh(beta * (x + kappa * (x * x * x))));
    } else if constexpr (OP == KBV_OP_SILU) {
        return x / (T(1) + k_exp(-x));
    } else if constexpr (OP == KBV_OP_EXP) {
        return k_exp(x);
    } else if constexpr (OP == KBV_OP_MIN_SCALAR) { /* minimum_kernel_cuda: a NaN wins */
        return x != x ? x : (p0 != p0 ? p0 : (p0 < x ? p0 : x));
    } else {
        static_assert(OP == KBV_OP_MAX_SCALAR, "unhandled unary op");
        return x != x ? x : (p0 != p0 ? p0 : (x < p0 ? p0 : x));
    }
}

template <int OP, typename T> __device__ __forceinline__ T binary_op(T a, T b)
{
    if constexpr (OP == KBV_OP_ADD)
        return a + b;
    else if constexpr (OP == KBV_OP_SUB)
        return a - b;
    else if constexpr (OP == KBV_OP_MUL)
        return a * b;
    else if constexpr (OP == KBV_OP_DIV)
        return a / b;
    else if constexpr (OP == KBV_OP_MINIMUM) /* a NaN operand wins, the first one */
        return a != a ? a : (b != b ? b : (b < a ? b : a));
    else {
        static_assert(OP == KBV_OP_MAXIMUM, "unhandled binary op");
        return a != a ? a : (b != b ? b : (a < b ? b : a));
    }
}

/* a op b in the opmath type, stored as T (one rounding for bf16). */
template <int OP, typename T> __device__ __forceinline__ T bin(T a, T b)
{
    using A = acc_t<T>;
    return T(binary_op<OP, A>(A(a), A(b)));
}

/* Tiles of U * blockDim vectors, thread-strided inside a tile; the fewer
 * than W elements after the last vector go to block 0. */
template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
unary_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n, acc_t<T> p0, acc_t<T> p1)
{
    using A = acc_t<T>;
    using V = typename VecOf<T>::type;
    constexpr int W = VecOf<T>::width;
    constexpr int U = vecs_per_thread<OP>();
    const int64_t nv = n / W, tile = (int64_t)blockDim.x * U;
    const V *__restrict__ xv = reinterpret_cast<const V *>(x);
    V *__restrict__ yv = reinterpret_cast<V *>(y);
    for (int64_t base = blockIdx.x * tile + threadIdx.x; base < nv; base += gridDim.x * tile) {
        V v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (base + u * blockDim.x < nv)
                v[u] = xv[base + u * blockDim.x];
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (base + u * blockDim.x < nv) {
#pragma unroll
                for (int w = 0; w < W; w++)
                    lane<V, T>(v[u], w) = T(unary_op<OP, A>(A(lane<V, T>(v[u], w)), p0, p1));
                yv[base + u * blockDim.x] = v[u];
            }
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < n - nv * W) {
        const int64_t e = nv * W + threadIdx.x;
        y[e] = T(unary_op<OP, A>(A(x[e]), p0, p1));
    }
}

/* Unaligned data: the same loop one element at a time. */
template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
unary_scalar_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n, acc_t<T> p0,
                    acc_t<T> p1)
{
    using A = acc_t<T>;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = T(unary_op<OP, A>(A(x[i]), p0, p1));
}

template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
unary_strided_kernel(const T *__restrict__ x, kbv_cuda_layout xl, T *__restrict__ y, int64_t n,
                     acc_t<T> p0, acc_t<T> p1)
{
    using A = acc_t<T>;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = T(unary_op<OP, A>(A(x[layout_offset(i, xl)]), p0, p1));
}

/* The same under 32-bit offsets: kOffsetUnroll elements a thread, loaded
 * before any is stored. */
template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
unary_offsets_kernel(const T *__restrict__ x, OffsetCalc<1> oc, T *__restrict__ y, unsigned n,
                     acc_t<T> p0, acc_t<T> p1)
{
    using A = acc_t<T>;
    unrolled_each<A>(
        n,
        [&](unsigned i) {
            unsigned off[1];
            oc.get(i, off);
            return A(x[off[0]]);
        },
        [&](unsigned i, A v) { y[i] = T(unary_op<OP, A>(v, p0, p1)); });
}

/* MODE 0: both full; 1: a is one element; 2: b is one element. Work item
 * t < n / W is vector t; the fewer than W after it are the scalar tail. */
template <int OP, typename T, int MODE>
__global__ void __launch_bounds__(kThreads)
binary_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y, int64_t n)
{
    using V = typename VecOf<T>::type;
    constexpr int W = VecOf<T>::width;
    const int64_t nv = n / W, items = nv + (n - nv * W);
    const T as = MODE == 1 ? a[0] : T(0);
    const T bs = MODE == 2 ? b[0] : T(0);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < items; t += step) {
        if (t < nv) {
            V va, vb, r;
            if (MODE != 1)
                va = reinterpret_cast<const V *>(a)[t];
            if (MODE != 2)
                vb = reinterpret_cast<const V *>(b)[t];
#pragma unroll
            for (int w = 0; w < W; w++) {
                T x = MODE == 1 ? as : lane<V, T>(va, w);
                T z = MODE == 2 ? bs : lane<V, T>(vb, w);
                lane<V, T>(r, w) = bin<OP, T>(x, z);
            }
            reinterpret_cast<V *>(y)[t] = r;
        } else {
            const int64_t e = nv * W + (t - nv);
            y[e] = bin<OP, T>(MODE == 1 ? as : a[e], MODE == 2 ? bs : b[e]);
        }
    }
}

template <int OP, typename T, int MODE>
__global__ void __launch_bounds__(kThreads)
binary_scalar_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = bin<OP, T>(MODE == 1 ? a[0] : a[i], MODE == 2 ? b[0] : b[i]);
}

/* A bf16 tensor and a float32 0-d operand (a Python number given to
 * forward(), which PyTorch meets as an opmath float, not rounded to bf16):
 * the scalar is a (MODE 1) or b (MODE 2). */
template <int OP, int MODE>
__global__ void __launch_bounds__(kThreads)
binary_f32_scalar_kernel(const bf16 *__restrict__ t, const float *__restrict__ s,
                         bf16 *__restrict__ y, int64_t n)
{
    const float sv = *s;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = bf16(MODE == 1 ? binary_op<OP, float>(sv, float(t[i]))
                              : binary_op<OP, float>(float(t[i]), sv));
}

template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
binary_strided_kernel(const T *__restrict__ a, kbv_cuda_layout al, const T *__restrict__ b,
                      kbv_cuda_layout bl, T *__restrict__ y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        int64_t oa = 0, ob = 0, rest = i;
        for (int d = al.ndim - 1; d >= 0; d--) {
            int64_t size = al.shape[d];
            int64_t c = rest % size;
            rest /= size;
            oa += c * al.stride[d];
            ob += c * bl.stride[d];
        }
        y[i] = bin<OP, T>(a[oa], b[ob]);
    }
}

template <int OP, typename T>
__global__ void __launch_bounds__(kThreads)
binary_offsets_kernel(const T *__restrict__ a, const T *__restrict__ b, OffsetCalc<2> oc,
                      T *__restrict__ y, unsigned n)
{
    struct Pair {
        T a, b;
    };
    unrolled_each<Pair>(
        n,
        [&](unsigned i) {
            unsigned off[2];
            oc.get(i, off);
            return Pair{a[off[0]], b[off[1]]};
        },
        [&](unsigned i, Pair v) { y[i] = bin<OP, T>(v.a, v.b); });
}

/* Broadcasting with at most three dims once mergeable dims are merged (every
 * broadcast in the suite: [R, C] / [R, 1], [N, C, HW] / [N, 1, HW], a row
 * vector along the last dim). The output is walked in 16-byte vectors; an
 * operand is read as a vector at the flat index when it has the output's
 * layout (FULL), as a vector at its own offset when its last dim is
 * contiguous and vectors never straddle a row (ROWVEC), else lane by lane
 * (GATHER). Indices are decoded once per vector with multiply-shift
 * division, not per element with 64-bit division as the generic kernel
 * does (that kernel ran PyTorch's RMSNorm division at half its speed). */
enum BcastKind { FULL, ROWVEC, GATHER };

struct Bcast3 {
    unsigned d1, d2;        /* sizes of the two inner dims (d0 is implied by n) */
    FastDiv by_d2, by_d1;
    int64_t sa[3], sb[3];   /* element strides of a and b per dim */
};

template <int K, typename T, typename V, int W>
__device__ __forceinline__ V bcast_load(const T *__restrict__ p, const int64_t *st, int64_t t,
                                        unsigned i0, unsigned i1, unsigned i2, unsigned d1,
                                        unsigned d2)
{
    if constexpr (K == FULL) {
        return reinterpret_cast<const V *>(p)[t];
    } else if constexpr (K == ROWVEC) {
        return *reinterpret_cast<const V *>(p + i0 * st[0] + i1 * st[1] + i2);
    } else {
        V v;
#pragma unroll
        for (int w = 0; w < W; w++) {
            lane<V, T>(v, w) = ldg(p + i0 * st[0] + i1 * st[1] + i2 * st[2]);
            if (++i2 == d2) { /* the vector crosses into the next row */
                i2 = 0;
                if (++i1 == d1) {
                    i1 = 0;
                    i0++;
                }
            }
        }
        return v;
    }
}

template <int OP, typename T, int KA, int KB>
__global__ void __launch_bounds__(kThreads)
binary_bcast_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y,
                    unsigned n, Bcast3 L)
{
    using V = typename VecOf<T>::type;
    constexpr int W = VecOf<T>::width;
    const unsigned nv = n / W, items = nv + (n - nv * W);
    const unsigned step = gridDim.x * blockDim.x;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < items; t += step) {
        const unsigned e = t < nv ? t * W : nv * W + (t - nv);
        const unsigned r = L.by_d2.div(e), i2 = L.by_d2.mod(e, r);
        const unsigned i0 = L.by_d1.div(r), i1 = L.by_d1.mod(r, i0);
        if (t < nv) {
            V va = bcast_load<KA, T, V, W>(a, L.sa, t, i0, i1, i2, L.d1, L.d2);
            V vb = bcast_load<KB, T, V, W>(b, L.sb, t, i0, i1, i2, L.d1, L.d2);
            V out;
#pragma unroll
            for (int w = 0; w < W; w++)
                lane<V, T>(out, w) = bin<OP, T>(lane<V, T>(va, w), lane<V, T>(vb, w));
            reinterpret_cast<V *>(y)[t] = out;
        } else {
            y[e] = bin<OP, T>(a[i0 * L.sa[0] + i1 * L.sa[1] + i2 * L.sa[2]],
                                 b[i0 * L.sb[0] + i1 * L.sb[1] + i2 * L.sb[2]]);
        }
    }
}

/* Merges adjacent dims that both operands walk as one (and drops size-1
 * dims) into at most three; false when more remain. */
static bool collapse3(const kbv_cuda_layout &al, const kbv_cuda_layout &bl, int64_t shape[3],
                      int64_t sa[3], int64_t sb[3])
{
    int64_t sh[KBV_MAX_DIMS], a[KBV_MAX_DIMS], b[KBV_MAX_DIMS];
    int k = 0; /* merged dims so far, innermost first */
    for (int d = al.ndim - 1; d >= 0; d--) {
        if (al.shape[d] == 1)
            continue;
        if (k > 0 && a[k - 1] * sh[k - 1] == al.stride[d] && b[k - 1] * sh[k - 1] == bl.stride[d]) {
            sh[k - 1] *= al.shape[d];
            continue;
        }
        sh[k] = al.shape[d];
        a[k] = al.stride[d];
        b[k] = bl.stride[d];
        k++;
    }
    if (k > 3)
        return false;
    for (int i = 0; i < 3; i++) { /* outermost first, padded with size-1 dims */
        const int src = k - 1 - (i - (3 - k));
        const bool pad = i < 3 - k;
        shape[i] = pad ? 1 : sh[src];
        sa[i] = pad ? 0 : a[src];
        sb[i] = pad ? 0 : b[src];
    }
    return true;
}

template <typename T>
static BcastKind kind_of(const T *p, const int64_t st[3], const int64_t shape[3])
{
    constexpr int W = VecOf<T>::width;
    const int64_t contiguous[3] = {shape[1] * shape[2], shape[2], 1};
    bool full = aligned16(p);
    for (int i = 0; i < 3; i++)
        full = full && (shape[i] == 1 || st[i] == contiguous[i]);
    if (full)
        return FULL;
    if (st[2] == 1 && shape[2] % W == 0 && st[1] % W == 0 && st[0] % W == 0 && aligned16(p))
        return ROWVEC;
    return GATHER;
}

template <int OP, typename T, int KA, int KB>
static cudaError_t bcast_launch(cudaStream_t s, const T *a, const T *b, T *y, unsigned n,
                                const Bcast3 &L)
{
    constexpr int W = VecOf<T>::width;
    auto k = binary_bcast_kernel<OP, T, KA, KB>;
    k<<<grid_cover(kThreads, n / W + n % W), kThreads, 0, s>>>(a, b, y, n, L);
    return cudaGetLastError();
}

template <int OP, typename T, int KA>
static cudaError_t bcast_b(cudaStream_t s, BcastKind kb, const T *a, const T *b, T *y,
                           unsigned n, const Bcast3 &L)
{
    switch (kb) {
    case FULL: return bcast_launch<OP, T, KA, FULL>(s, a, b, y, n, L);
    case ROWVEC: return bcast_launch<OP, T, KA, ROWVEC>(s, a, b, y, n, L);
    default: return bcast_launch<OP, T, KA, GATHER>(s, a, b, y, n, L);
    }
}

/* cudaErrorNotSupported: the shape is not one this path takes. */
template <int OP, typename T>
static cudaError_t binary_bcast_typed(cudaStream_t s, const T *a, const kbv_cuda_layout &al,
                                      const T *b, const kbv_cuda_layout &bl, T *y)
{
    const int64_t n = layout_numel(al);
    int64_t shape[3], sa[3], sb[3];
    if (n >= (int64_t)1 << 31 || !aligned16(y) || !collapse3(al, bl, shape, sa, sb))
        return cudaErrorNotSupported;
    Bcast3 L;
    L.d1 = (unsigned)shape[1];
    L.d2 = (unsigned)shape[2];
    L.by_d1 = FastDiv(L.d1);
    L.by_d2 = FastDiv(L.d2);
    for (int i = 0; i < 3; i++) {
        L.sa[i] = sa[i];
        L.sb[i] = sb[i];
    }
    const BcastKind ka = kind_of(a, sa, shape), kb = kind_of(b, sb, shape);
    switch (ka) {
    case FULL: return bcast_b<OP, T, FULL>(s, kb, a, b, y, (unsigned)n, L);
    case ROWVEC: return bcast_b<OP, T, ROWVEC>(s, kb, a, b, y, (unsigned)n, L);
    default: return bcast_b<OP, T, GATHER>(s, kb, a, b, y, (unsigned)n, L);
    }
}

template <typename E>
__global__ void __launch_bounds__(kThreads)
copy_strided_kernel(const E *__restrict__ x, kbv_cuda_layout xl, E *__restrict__ y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = x[layout_offset(i, xl)];
}

template <typename E>
__global__ void __launch_bounds__(kThreads)
copy_offsets_kernel(const E *__restrict__ x, OffsetCalc<1> oc, E *__restrict__ y, unsigned n)
{
    unrolled_each<E>(
        n,
        [&](unsigned i) {
            unsigned off[1];
            oc.get(i, off);
            return x[off[0]];
        },
        [&](unsigned i, E v) { y[i] = v; });
}

/* A float32 operand on the float64 backend (the oracle's input, read as its
 * exact double; backend.h, widens_f32): each element computed as
 * unary_kernel<OP, double> computes it, four a thread from one 16-byte
 * load, so the oracle needs no float64 copy of its input first. */
template <int OP>
__global__ void __launch_bounds__(kThreads)
unary_widen_kernel(const float *__restrict__ x, double *__restrict__ y, int64_t n, double p0,
                   double p1, bool vec)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t start = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t done = 0;
    if (vec) {
        const float4 *__restrict__ xv = reinterpret_cast<const float4 *>(x);
        double2 *__restrict__ yv = reinterpret_cast<double2 *>(y);
        const int64_t nv = n / 4;
        for (int64_t i = start; i < nv; i += step) {
            const float4 v = xv[i];
            yv[2 * i] = make_double2(unary_op<OP, double>(v.x, p0, p1),
                                     unary_op<OP, double>(v.y, p0, p1));
            yv[2 * i + 1] = make_double2(unary_op<OP, double>(v.z, p0, p1),
                                         unary_op<OP, double>(v.w, p0, p1));
        }
        done = nv * 4;
    }
    for (int64_t i = done + start; i < n; i += step)
        y[i] = unary_op<OP, double>((double)x[i], p0, p1);
}

template <int OP>
cudaError_t unary_widen_typed(cudaStream_t s, double p0, double p1, const void *x, void *y,
                              int64_t n)
{
    const bool vec = aligned16(x) && aligned16(y);
    unary_widen_kernel<OP><<<grid_cover(kThreads, vec ? n / 4 + 1 : n), kThreads, 0, s>>>(
        static_cast<const float *>(x), static_cast<double *>(y), n, p0, p1, vec);
    return cudaGetLastError();
}

template <int OP, typename T>
cudaError_t unary_typed(cudaStream_t s, double p0, double p1, const void *x, void *y,
                        int64_t n)
{
    using A = acc_t<T>;
    const T *xt = static_cast<const T *>(x);
    T *yt = static_cast<T *>(y);
    if (aligned16(x) && aligned16(y)) {
        constexpr int W = VecOf<T>::width;
        unary_kernel<OP, T><<<grid_cover(kThreads * vecs_per_thread<OP>(), n / W), kThreads, 0,
                              s>>>(xt, yt, n, A(p0), A(p1));
    } else {
        auto k = unary_scalar_kernel<OP, T>;
        k<<<grid_cover(kThreads, n), kThreads, 0, s>>>(xt, yt, n, A(p0), A(p1));
    }
    return cudaGetLastError();
}

template <int OP, typename T>
cudaError_t unary_strided_typed(cudaStream_t s, double p0, double p1, const void *x,
                                const kbv_cuda_layout *xl, void *y)
{
    using A = acc_t<T>;
    int64_t n = layout_numel(*xl);
    OffsetCalc<1> oc;
    const kbv_cuda_layout *ls[1] = {xl};
    if (make_offset_calc(ls, oc)) {
        auto k = unary_offsets_kernel<OP, T>;
        k<<<offset_grid(kThreads, n), kThreads, 0, s>>>(static_cast<const T *>(x), oc,
                                                        static_cast<T *>(y), (unsigned)n,
                                                        A(p0), A(p1));
        return cudaGetLastError();
    }
    auto k = unary_strided_kernel<OP, T>;
    k<<<grid_cover(kThreads, n), kThreads, 0, s>>>(static_cast<const T *>(x), *xl,
                                                          static_cast<T *>(y), n, A(p0), A(p1));
    return cudaGetLastError();
}

template <int OP, typename T, int MODE>
cudaError_t binary_mode(cudaStream_t s, const void *a, const void *b, void *y, int64_t n)
{
    const T *at = static_cast<const T *>(a);
    const T *bt = static_cast<const T *>(b);
    T *yt = static_cast<T *>(y);
    bool aligned = aligned16(y) && (MODE == 1 || aligned16(a)) && (MODE == 2 || aligned16(b));
    if (aligned) {
        constexpr int W = VecOf<T>::width;
        binary_kernel<OP, T, MODE><<<grid_cover(kThreads, n / W + n % W), kThreads, 0, s>>>(
            at, bt, yt, n);
    } else {
        auto k = binary_scalar_kernel<OP, T, MODE>;
        k<<<grid_cover(kThreads, n), kThreads, 0, s>>>(at, bt, yt, n);
    }
    return cudaGetLastError();
}

template <int OP, typename T>
cudaError_t binary_typed(cudaStream_t s, const void *a, int a_scalar, const void *b,
                         int b_scalar, void *y, int64_t n)
{
    if (a_scalar && !b_scalar)
        return binary_mode<OP, T, 1>(s, a, b, y, n);
    if (b_scalar)
        return binary_mode<OP, T, 2>(s, a, b, y, n);
    return binary_mode<OP, T, 0>(s, a, b, y, n);
}

template <int OP, typename T>
cudaError_t binary_strided_typed(cudaStream_t s, const void *a, const kbv_cuda_layout *al,
                                 const void *b, const kbv_cuda_layout *bl, void *y)
{
    cudaError_t fast = binary_bcast_typed<OP, T>(s, static_cast<const T *>(a), *al,
                                                 static_cast<const T *>(b), *bl,
                                                 static_cast<T *>(y));
    if (fast != cudaErrorNotSupported)
        return fast;
    int64_t n = layout_numel(*al);
    OffsetCalc<2> oc;
    const kbv_cuda_layout *ls[2] = {al, bl};
    if (make_offset_calc(ls, oc)) {
        auto k = binary_offsets_kernel<OP, T>;
        k<<<offset_grid(kThreads, n), kThreads, 0, s>>>(static_cast<const T *>(a),
                                                        static_cast<const T *>(b), oc,
                                                        static_cast<T *>(y), (unsigned)n);
        return cudaGetLastError();
    }
    auto k = binary_strided_kernel<OP, T>;
    k<<<grid_cover(kThreads, n), kThreads, 0, s>>>(static_cast<const T *>(a), *al,
                                                          static_cast<const T *>(b), *bl,
                                                          static_cast<T *>(y), n);
    return cudaGetLastError();
}

/* Dispatch helpers: one template instantiation per (op, type). */
#define KBV_UNARY_OPS(X)                                                                   \
    X(KBV_OP_ABS) X(KBV_OP_RELU) X(KBV_OP_LEAKY_RELU) X(KBV_OP_SIGMOID) X(KBV_OP_TANH)      \
    X(KBV_OP_GELU) X(KBV_OP_SELU) X(KBV_OP_HARDSIGMOID) X(KBV_OP_SOFTPLUS) X(KBV_OP_ELU)    \
    X(KBV_OP_HARDTANH) X(KBV_OP_ADD_SCALAR) X(KBV_OP_MUL_SCALAR) X(KBV_OP_CLAMP)             \
    X(KBV_OP_CLAMP_MAX) X(KBV_OP_SUB_SCALAR) X(KBV_OP_DIV_SCALAR) X(KBV_OP_MISH)            \
    X(KBV_OP_HARDSWISH) X(KBV_OP_GELU_TANH) X(KBV_OP_SILU) X(KBV_OP_MIN_SCALAR)             \
    X(KBV_OP_MAX_SCALAR) X(KBV_OP_EXP)

#define KBV_BINARY_OPS(X)                                                                  \
    X(KBV_OP_ADD) X(KBV_OP_SUB) X(KBV_OP_MUL) X(KBV_OP_DIV) X(KBV_OP_MINIMUM) X(KBV_OP_MAXIMUM)

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_unary(cudaStream_t s, int op, int kind,
                                             double p0, double p1, const void *x, void *y,
                                             int64_t n)
{
    if (n <= 0)
        return cudaSuccess;
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        return kind == KIND_F64    ? unary_typed<OP, double>(s, p0, p1, x, y, n)          \
               : kind == KIND_BF16 ? unary_typed<OP, bf16>(s, p0, p1, x, y, n)            \
                                   : unary_typed<OP, float>(s, p0, p1, x, y, n);
        KBV_UNARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_unary_widen(cudaStream_t s, int op, double p0,
                                                   double p1, const void *x, void *y, int64_t n)
{
    if (n <= 0)
        return cudaSuccess;
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        return unary_widen_typed<OP>(s, p0, p1, x, y, n);
        KBV_UNARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_unary_strided(cudaStream_t s, int op, int kind,
                                                     double p0, double p1, const void *x,
                                                     const kbv_cuda_layout *xl, void *y)
{
    if (layout_numel(*xl) <= 0)
        return cudaSuccess;
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        return kind == KIND_F64    ? unary_strided_typed<OP, double>(s, p0, p1, x, xl, y) \
               : kind == KIND_BF16 ? unary_strided_typed<OP, bf16>(s, p0, p1, x, xl, y)   \
                                   : unary_strided_typed<OP, float>(s, p0, p1, x, xl, y);
        KBV_UNARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_binary(cudaStream_t s, int op, int kind,
                                              const void *a, int a_scalar, const void *b,
                                              int b_scalar, void *y, int64_t n)
{
    if (n <= 0)
        return cudaSuccess;
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        return kind == KIND_F64 ? binary_typed<OP, double>(s, a, a_scalar, b, b_scalar, y, n) \
               : kind == KIND_BF16 ? binary_typed<OP, bf16>(s, a, a_scalar, b, b_scalar, y, n) \
                                   : binary_typed<OP, float>(s, a, a_scalar, b, b_scalar, y, n);
        KBV_BINARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_binary_strided(cudaStream_t s, int op, int kind,
                                                      const void *a, const kbv_cuda_layout *al,
                                                      const void *b, const kbv_cuda_layout *bl,
                                                      void *y)
{
    if (al->ndim != bl->ndim)
        return cudaErrorInvalidValue;
    if (layout_numel(*al) <= 0)
        return cudaSuccess;
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        return kind == KIND_F64    ? binary_strided_typed<OP, double>(s, a, al, b, bl, y) \
               : kind == KIND_BF16 ? binary_strided_typed<OP, bf16>(s, a, al, b, bl, y)   \
                                   : binary_strided_typed<OP, float>(s, a, al, b, bl, y);
        KBV_BINARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_copy_strided(cudaStream_t s, size_t elem_size,
                                                    const void *x, const kbv_cuda_layout *xl,
                                                    void *y)
{
    int64_t n = layout_numel(*xl);
    if (n <= 0)
        return cudaSuccess;
    OffsetCalc<1> oc;
    const kbv_cuda_layout *ls[1] = {xl};
    const bool narrow = make_offset_calc(ls, oc);
    switch (elem_size) {
#define COPY(E)                                                                            \
    {                                                                                      \
        if (narrow) {                                                                      \
            auto k = copy_offsets_kernel<E>;                                               \
            k<<<offset_grid(kThreads, n), kThreads, 0, s>>>(static_cast<const E *>(x), oc, \
                                                            static_cast<E *>(y),           \
                                                            (unsigned)n);                  \
            return cudaGetLastError();                                                     \
        }                                                                                  \
        auto k = copy_strided_kernel<E>;                                                   \
        k<<<grid_cover(kThreads, n), kThreads, 0, s>>>(static_cast<const E *>(x), *xl, \
                                                              static_cast<E *>(y), n);     \
        return cudaGetLastError();                                                         \
    }
    case 1: COPY(uint8_t)
    case 2: COPY(uint16_t)
    case 4: COPY(uint32_t)
    case 8: COPY(uint64_t)
#undef COPY
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_binary_f32_scalar(cudaStream_t s, int op,
                                                         const void *t, const float *scalar,
                                                         int scalar_first, void *y, int64_t n)
{
    if (n <= 0)
        return cudaSuccess;
    const bf16 *tt = static_cast<const bf16 *>(t);
    bf16 *yt = static_cast<bf16 *>(y);
    switch (op) {
#define CASE(OP)                                                                           \
    case OP:                                                                               \
        if (scalar_first)                                                                  \
            binary_f32_scalar_kernel<OP, 1><<<grid_cover(kThreads, n), kThreads, 0, s>>>(  \
                tt, scalar, yt, n);                                                        \
        else                                                                               \
            binary_f32_scalar_kernel<OP, 2><<<grid_cover(kThreads, n), kThreads, 0, s>>>(  \
                tt, scalar, yt, n);                                                        \
        return cudaGetLastError();
        KBV_BINARY_OPS(CASE)
#undef CASE
    default:
        return cudaErrorInvalidValue;
    }
}
