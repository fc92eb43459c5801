/* Losses reduced to a 0-dim mean: cross entropy (a warp per row: online
 * max and sum of exponentials over 16-byte loads), smooth L1 and KL
 * divergence (grid-stride, 16-byte loads), triplet margin (a warp per row,
 * both distances in one pass). Each block writes a partial (sum, count) in
 * double; one block combines the partials in a fixed order, so results are
 * deterministic. Per-element formulas are PyTorch's (xlogy, eps added to the
 * differences of pairwise_distance, clamp_min keeping NaN). bfloat16 operands
 * compute in float or double like float ones and the loss is rounded once;
 * PyTorch's losses round some inner steps to bf16 (cross_entropy's
 * log_softmax, smooth_l1's and kl_div's elementwise terms), which moves
 * their mean by far less than its own rounding. */
#include <math.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"

using namespace kbv_norm;

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxElemBlocks = 2048;

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* Per-block (sum, count) of the row losses its warps computed. */
__device__ __forceinline__ void block_partial(double loss, double count, double2 *partial)
{
    double s = block_sum(loss);
    double c = block_sum(count);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = make_double2(s, c);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
cross_entropy_kernel(const T *__restrict__ x, const int64_t *__restrict__ tg, int64_t rows,
                     int64_t classes, double2 *__restrict__ partial)
{
    const int lid = threadIdx.x % 32;
    double loss = 0.0, count = 0.0;
    for (int64_t r = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; r < rows;
         r += (int64_t)gridDim.x * kWarps) {
        const T *row = x + r * classes;
        float m = -INFINITY, s = 0.0f;
        auto add = [&](float v) {
            if (v > m) {
                s *= expf(m - v);
                m = v;
            }
            s += expf(v - m);
            if (v != v)
                m = v;
        };
        if (sizeof(T) == 4 && aligned16(row) && classes % 4 == 0) {
            const float4 *rv = reinterpret_cast<const float4 *>(row);
            for (int64_t i = lid; i < classes / 4; i += 32) {
                float4 a = rv[i];
                add(a.x), add(a.y), add(a.z), add(a.w);
            }
        } else {
            for (int64_t i = lid; i < classes; i += 32)
                add((float)row[i]);
        }
        /* combine the lanes' (max, sum) */
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, off);
            float s2 = __shfl_xor_sync(0xffffffffu, s, off);
            float big = m2 > m ? m2 : m;
            if (m != m || m2 != m2) {
                m = m != m ? m : m2;
                s = NAN;
            } else if (big == -INFINITY) {
                s = 0.0f;
            } else {
                s = s * expf(m - big) + s2 * expf(m2 - big);
                m = big;
            }
        }
        if (lid == 0) {
            const int64_t t = tg[r];
            if (t != -100) {
                double l = (t < 0 || t >= classes)
                               ? NAN
                               : (log((double)s) + (double)m) - (double)row[t];
                loss += l;
                count += 1.0;
            }
        }
    }
    block_partial(loss, count, partial);
}

/* Double precision logits: the same, with a double running (max, sum). */
template <>
__global__ void __launch_bounds__(kThreads)
cross_entropy_kernel<double>(const double *__restrict__ x, const int64_t *__restrict__ tg,
                             int64_t rows, int64_t classes, double2 *__restrict__ partial)
{
    const int lid = threadIdx.x % 32;
    double loss = 0.0, count = 0.0;
    for (int64_t r = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; r < rows;
         r += (int64_t)gridDim.x * kWarps) {
        const double *row = x + r * classes;
        double m = -INFINITY;
        for (int64_t i = lid; i < classes; i += 32)
            m = row[i] > m || row[i] != row[i] ? row[i] : m;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            double m2 = __shfl_xor_sync(0xffffffffu, m, off);
            m = m2 > m || m2 != m2 ? m2 : m;
        }
        double s = 0.0;
        for (int64_t i = lid; i < classes; i += 32)
            s += exp(row[i] - m);
        s = warp_sum(s);
        if (lid == 0) {
            const int64_t t = tg[r];
            if (t != -100) {
                loss += (t < 0 || t >= classes) ? NAN : (log(s) + m) - row[t];
                count += 1.0;
            }
        }
    }
    block_partial(loss, count, partial);
}

enum Pair { SMOOTH_L1, KL_DIV };

template <typename T>
__device__ __forceinline__ double pair_term(Pair p, T a, T b, double beta)
{
    if (p == SMOOTH_L1) {
        double d = fabs((double)a - (double)b);
        return d < beta ? 0.5 * d * d / beta : d - 0.5 * beta;
    }
    /* kl_div: xlogy(t, t) - t * input, with a = input, b = target */
    double t = (double)b;
    double xlogy = t == 0.0 ? 0.0 : t * log(t);
    return xlogy - t * (double)a;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
pair_kernel(Pair p, const T *__restrict__ a, const T *__restrict__ b, int64_t n, double beta,
            double2 *__restrict__ partial)
{
    double acc = 0.0;
    const int64_t step = (int64_t)gridDim.x * kThreads;
    const int64_t start = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int64_t done = 0;
    if (aligned16(a) && aligned16(b)) {
        using V = typename Vec<T>::type;
        constexpr int W = Vec<T>::width;
        const V *av = reinterpret_cast<const V *>(a), *bv = reinterpret_cast<const V *>(b);
        const int64_t nv = n / W;
#pragma unroll 2
        for (int64_t i = start; i < nv; i += step) {
            V x = av[i], y = bv[i];
#pragma unroll
            for (int k = 0; k < W; k++)
                acc += pair_term<T>(p, lane<V, T>(x, k), lane<V, T>(y, k), beta);
        }
        done = nv * W;
    }
    for (int64_t i = done + start; i < n; i += step)
        acc += pair_term<T>(p, a[i], b[i], beta);
    block_partial(acc, 0.0, partial);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
triplet_kernel(const T *__restrict__ a, const T *__restrict__ p, const T *__restrict__ ng,
               int64_t rows, int64_t cols, double margin, double eps,
               double2 *__restrict__ partial)
{
    using A = acc_t<T>;
    const int lid = threadIdx.x % 32;
    double loss = 0.0;
    const A e = (A)eps;   /* a Python number: the opmath type, not T */
    for (int64_t r = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; r < rows;
         r += (int64_t)gridDim.x * kWarps) {
        const int64_t at = r * cols;
        double dp = 0.0, dn = 0.0;
        auto add = [&](T x, T y, T z) {
            double u = (double)(A(x) - A(y) + e), v = (double)(A(x) - A(z) + e);
            dp += u * u;
            dn += v * v;
        };
        if (aligned16(a + at) && aligned16(p + at) && aligned16(ng + at) &&
            cols % Vec<T>::width == 0) {
            using V = typename Vec<T>::type;
            constexpr int W = Vec<T>::width;
            const V *av = reinterpret_cast<const V *>(a + at);
            const V *pv = reinterpret_cast<const V *>(p + at);
            const V *nv = reinterpret_cast<const V *>(ng + at);
            for (int64_t i = lid; i < cols / W; i += 32) {
                V x = av[i], y = pv[i], z = nv[i];
#pragma unroll
                for (int k = 0; k < W; k++)
                    add(lane<V, T>(x, k), lane<V, T>(y, k), lane<V, T>(z, k));
            }
        } else {
            for (int64_t i = lid; i < cols; i += 32)
                add(a[at + i], p[at + i], ng[at + i]);
        }
        dp = warp_sum(dp);
        dn = warp_sum(dn);
        if (lid == 0) {
            double l = margin + sqrt(dp) - sqrt(dn);
            loss += l < 0.0 ? 0.0 : l;
        }
    }
    block_partial(loss, 0.0, partial);
}

/* y = sum / (divisor > 0 ? divisor : the partials' count). */
template <typename T>
__global__ void __launch_bounds__(kThreads)
final_kernel(const double2 *__restrict__ partial, int parts, double divisor, T *__restrict__ y)
{
    double s = 0.0, c = 0.0;
    for (int i = threadIdx.x; i < parts; i += kThreads) {
        s += partial[i].x;
        c += partial[i].y;
    }
    s = block_sum(s);
    c = block_sum(c);
    if (threadIdx.x == 0)
        *y = (T)(s / (divisor > 0.0 ? divisor : c));
}

static int row_blocks(int64_t rows)
{
    int64_t b = (rows + kWarps - 1) / kWarps;
    return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

static int elem_blocks(int64_t n)
{
    int64_t b = (n / 4 + kThreads - 1) / kThreads;
    return (int)(b < 1 ? 1 : b > kMaxElemBlocks ? kMaxElemBlocks : b);
}

template <typename T> cudaError_t finish(cudaStream_t s, double2 *part, int parts, double div,
                                         void *y)
{
    final_kernel<T><<<1, kThreads, 0, s>>>(part, parts, div, (T *)y);
    return cudaGetLastError();
}

} /* namespace */

extern "C" size_t kbv_cuda_loss_scratch_bytes(int64_t rows, int64_t n)
{
    int a = row_blocks(rows), b = elem_blocks(n);
    return (size_t)(a > b ? a : b) * sizeof(double2);
}

extern "C" cudaError_t kbv_cuda_launch_cross_entropy(cudaStream_t s, int ft, const void *x,
                                                     const int64_t *targets, void *y,
                                                     int64_t rows, int64_t classes,
                                                     void *scratch)
{
    double2 *part = (double2 *)scratch;
    const int parts = row_blocks(rows);
    if (ft == KIND_BF16) {
        cross_entropy_kernel<bf16><<<parts, kThreads, 0, s>>>((const bf16 *)x, targets, rows,
                                                              classes, part);
        return finish<bf16>(s, part, parts, 0.0, y);
    }
    if (ft == KIND_F64) {
        cross_entropy_kernel<double><<<parts, kThreads, 0, s>>>((const double *)x, targets, rows,
                                                                classes, part);
        return finish<double>(s, part, parts, 0.0, y);
    }
    cross_entropy_kernel<float><<<parts, kThreads, 0, s>>>((const float *)x, targets, rows,
                                                           classes, part);
    return finish<float>(s, part, parts, 0.0, y);
}

static cudaError_t pair(cudaStream_t s, Pair p, int ft, const void *a, const void *b,
                        void *y, int64_t n, double beta, double divisor, void *scratch)
{
    double2 *part = (double2 *)scratch;
    const int parts = elem_blocks(n);
    if (ft == KIND_BF16) {
        pair_kernel<bf16><<<parts, kThreads, 0, s>>>(p, (const bf16 *)a, (const bf16 *)b, n, beta,
                                                     part);
        return finish<bf16>(s, part, parts, divisor, y);
    }
    if (ft == KIND_F64) {
        pair_kernel<double><<<parts, kThreads, 0, s>>>(p, (const double *)a, (const double *)b,
                                                       n, beta, part);
        return finish<double>(s, part, parts, divisor, y);
    }
    pair_kernel<float><<<parts, kThreads, 0, s>>>(p, (const float *)a, (const float *)b, n,
                                                  beta, part);
    return finish<float>(s, part, parts, divisor, y);
}

extern "C" cudaError_t kbv_cuda_launch_smooth_l1(cudaStream_t s, int ft, const void *a,
                                                 const void *b, void *y, int64_t n, double beta,
                                                 void *scratch)
{
    return pair(s, SMOOTH_L1, ft, a, b, y, n, beta, (double)n, scratch);
}

extern "C" cudaError_t kbv_cuda_launch_kl_div(cudaStream_t s, int ft, const void *input,
                                              const void *target, void *y, int64_t n,
                                              int64_t batch, void *scratch)
{
    return pair(s, KL_DIV, ft, input, target, y, n, 0.0, (double)batch, scratch);
}

extern "C" cudaError_t kbv_cuda_launch_triplet(cudaStream_t s, int ft, const void *a,
                                               const void *p, const void *ng, void *y,
                                               int64_t rows, int64_t cols, double margin,
                                               double eps, void *scratch)
{
    double2 *part = (double2 *)scratch;
    const int parts = row_blocks(rows);
    if (ft == KIND_BF16) {
        triplet_kernel<bf16><<<parts, kThreads, 0, s>>>((const bf16 *)a, (const bf16 *)p,
                                                        (const bf16 *)ng, rows, cols, margin, eps,
                                                        part);
        return finish<bf16>(s, part, parts, (double)rows, y);
    }
    if (ft == KIND_F64) {
        triplet_kernel<double><<<parts, kThreads, 0, s>>>((const double *)a, (const double *)p,
                                                          (const double *)ng, rows, cols, margin,
                                                          eps, part);
        return finish<double>(s, part, parts, (double)rows, y);
    }
    triplet_kernel<float><<<parts, kThreads, 0, s>>>((const float *)a, (const float *)p,
                                                     (const float *)ng, rows, cols, margin, eps,
                                                     part);
    return finish<float>(s, part, parts, (double)rows, y);
}
