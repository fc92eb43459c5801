/* Elementwise pieces of the normalisation, GELU and loss problems: pow with
 * a scalar exponent (PyTorch's special cases: 2 and 3 by multiplication,
 * +-0.5 by roots, -1 and -2 by reciprocals), sqrt, log, p - x, clamp(min=p)
 * with NaN kept, a bool-mask multiply, and rounding to float16 values.
 * Grid-stride loops with 16-byte loads where the pointers allow; bfloat16
 * computes in float (with the scalar in float) and rounds once. */
#include <math.h>

#include <cuda_fp16.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"
#include "graph/ops.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = 256;

enum Fn { POW2, POW3, SQRT_, RSQRT_, RECIP, RECIP2, POWF, LOG_, RSUB, CLAMP_MIN };

template <typename T> __device__ __forceinline__ T apply(Fn f, T x, T p)
{
    switch (f) {
    case POW2: return x * x;
    case POW3: return x * x * x;
    case SQRT_: return k_sqrt(x);
    case RSQRT_: return T(1) / k_sqrt(x);
    case RECIP: return T(1) / x;
    case RECIP2: return T(1) / (x * x);
    case POWF: return k_pow(x, p);
    case LOG_: return k_log(x);
    case RSUB: return p - x;
    default: return x < p ? p : x; /* a NaN x stays NaN */
    }
}

template <typename T, Fn F>
__global__ void __launch_bounds__(kThreads)
pointwise_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n, acc_t<T> p, bool vec)
{
    using A = acc_t<T>;
    const int64_t step = (int64_t)gridDim.x * kThreads;
    const int64_t start = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int64_t done = 0;
    if (vec) {
        using V = typename Vec<T>::type;
        constexpr int W = Vec<T>::width;
        const V *xv = reinterpret_cast<const V *>(x);
        V *yv = reinterpret_cast<V *>(y);
        const int64_t nv = n / W;
        for (int64_t i = start; i < nv; i += step) {
            V a = xv[i];
#pragma unroll
            for (int k = 0; k < W; k++)
                lane<V, T>(a, k) = T(apply<A>(F, A(lane<V, T>(a, k)), p));
            yv[i] = a;
        }
        done = nv * Vec<T>::width;
    }
    for (int64_t i = done + start; i < n; i += step)
        y[i] = T(apply<A>(F, A(x[i]), p));
}

template <typename T, Fn F>
cudaError_t run(cudaStream_t s, const T *x, T *y, int64_t n, double p)
{
    const bool vec = aligned16(x) && aligned16(y);
    const int64_t work = vec ? (n + Vec<T>::width - 1) / Vec<T>::width : n;
    pointwise_kernel<T, F><<<blocks_for(work, kThreads), kThreads, 0, s>>>(x, y, n,
                                                                            (acc_t<T>)p, vec);
    return cudaGetLastError();
}

template <typename T>
cudaError_t dispatch(cudaStream_t s, Fn f, const T *x, T *y, int64_t n, double p)
{
    switch (f) {
    case POW2: return run<T, POW2>(s, x, y, n, p);
    case POW3: return run<T, POW3>(s, x, y, n, p);
    case SQRT_: return run<T, SQRT_>(s, x, y, n, p);
    case RSQRT_: return run<T, RSQRT_>(s, x, y, n, p);
    case RECIP: return run<T, RECIP>(s, x, y, n, p);
    case RECIP2: return run<T, RECIP2>(s, x, y, n, p);
    case POWF: return run<T, POWF>(s, x, y, n, p);
    case LOG_: return run<T, LOG_>(s, x, y, n, p);
    case RSUB: return run<T, RSUB>(s, x, y, n, p);
    default: return run<T, CLAMP_MIN>(s, x, y, n, p);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
mul_mask_kernel(const T *__restrict__ x, const unsigned char *__restrict__ m, T *__restrict__ y,
                int64_t n, int64_t period, bool vec)
{
    const int64_t step = (int64_t)gridDim.x * kThreads;
    const int64_t start = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int64_t done = 0;
    if (vec) { /* 4 elements and 4 mask bytes per step (float only) */
        const float4 *xv = reinterpret_cast<const float4 *>(x);
        const uchar4 *mv = reinterpret_cast<const uchar4 *>(m);
        float4 *yv = reinterpret_cast<float4 *>(y);
        const int64_t nv = n / 4;
        for (int64_t i = start; i < nv; i += step) {
            float4 a = xv[i];
            uchar4 b = mv[(i * 4 % period) / 4];
            a.x *= (float)(b.x != 0);
            a.y *= (float)(b.y != 0);
            a.z *= (float)(b.z != 0);
            a.w *= (float)(b.w != 0);
            yv[i] = a;
        }
        done = nv * 4;
    }
    for (int64_t i = done + start; i < n; i += step)
        y[i] = T(acc_t<T>(x[i]) * acc_t<T>(m[i % period] != 0));
}

template <typename T> __device__ __forceinline__ T round_half(T v)
{
    return (T)__half2float(__float2half_rn((float)v));
}

/* Exact double -> half rounding: through float only where that is exact. */
template <> __device__ __forceinline__ double round_half<double>(double v)
{
    return (double)__half2float(__double2half(v));
}

/* In place, 16 bytes per step where y allows (L1/97 rounds 2 GB of float
 * outputs: 1.8 ms element by element on an H200). */
template <typename T>
__global__ void __launch_bounds__(kThreads) round_half_kernel(T *__restrict__ y, int64_t n, bool vec)
{
    const int64_t step = (int64_t)gridDim.x * kThreads;
    const int64_t start = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int64_t done = 0;
    if (vec) {
        using V = typename Vec<T>::type;
        constexpr int W = Vec<T>::width;
        V *yv = reinterpret_cast<V *>(y);
        const int64_t nv = n / W;
        for (int64_t i = start; i < nv; i += step) {
            V a = yv[i];
#pragma unroll
            for (int k = 0; k < W; k++)
                lane<V, T>(a, k) = round_half<T>(lane<V, T>(a, k));
            yv[i] = a;
        }
        done = nv * W;
    }
    for (int64_t i = done + start; i < n; i += step)
        y[i] = round_half<T>(y[i]);
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_pointwise(cudaStream_t s, int op, int ft, double p,
                                                 const void *x, void *y, int64_t n)
{
    Fn f;
    switch (op) {
    case KBV_OP_POW_SCALAR:
        f = p == 2.0    ? POW2
            : p == 3.0  ? POW3
            : p == 0.5  ? SQRT_
            : p == -0.5 ? RSQRT_
            : p == -1.0 ? RECIP
            : p == -2.0 ? RECIP2
                        : POWF;
        break;
    case KBV_OP_SQRT: f = SQRT_; break;
    case KBV_OP_LOG: f = LOG_; break;
    case KBV_OP_RSUB_SCALAR: f = RSUB; break;
    case KBV_OP_CLAMP_MIN: f = CLAMP_MIN; break;
    default: return cudaErrorInvalidValue;
    }
    if (n == 0)
        return cudaSuccess;
    if (ft == KIND_BF16)
        return dispatch<bf16>(s, f, (const bf16 *)x, (bf16 *)y, n, p);
    if (ft == KIND_F64)
        return dispatch<double>(s, f, (const double *)x, (double *)y, n, p);
    return dispatch<float>(s, f, (const float *)x, (float *)y, n, p);
}

extern "C" cudaError_t kbv_cuda_launch_mul_mask(cudaStream_t s, int ft, const void *x,
                                                const unsigned char *mask, void *y, int64_t n,
                                                int64_t mask_period)
{
    if (n == 0)
        return cudaSuccess;
    if (mask_period <= 0)
        return cudaErrorInvalidValue;
    if (ft == KIND_BF16) {
        mul_mask_kernel<bf16><<<blocks_for(n, kThreads), kThreads, 0, s>>>(
            (const bf16 *)x, mask, (bf16 *)y, n, mask_period, false);
    } else if (ft == KIND_F64) {
        mul_mask_kernel<double><<<blocks_for(n, kThreads), kThreads, 0, s>>>(
            (const double *)x, mask, (double *)y, n, mask_period, false);
    } else {
        const bool vec = aligned16(x) && aligned16(y) && ((uintptr_t)mask & 3) == 0 &&
                         mask_period % 4 == 0;
        mul_mask_kernel<float><<<blocks_for(vec ? n / 4 + 1 : n, kThreads), kThreads, 0, s>>>(
            (const float *)x, mask, (float *)y, n, mask_period, vec);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_round_half(cudaStream_t s, int is_f64, void *y, int64_t n)
{
    if (n == 0)
        return cudaSuccess;
    const bool vec = aligned16(y);
    if (is_f64)
        round_half_kernel<double>
            <<<blocks_for(vec ? (n + 1) / 2 : n, kThreads), kThreads, 0, s>>>((double *)y, n, vec);
    else
        round_half_kernel<float>
            <<<blocks_for(vec ? (n + 3) / 4 : n, kThreads), kThreads, 0, s>>>((float *)y, n, vec);
    return cudaGetLastError();
}
