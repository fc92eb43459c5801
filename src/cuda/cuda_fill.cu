/* Input and parameter generation on the device: every element drawn from
 * dist/dist.h by its flat index, so the values equal the CPU backend's (up
 * to rare last-bit differences of device log/cos/exp in double before the
 * rounding to the input's dtype).
 *
 * Float values are rounded to the input's logical dtype (float32 as
 * get_inputs() makes them; float16 or float64 where the problem says so),
 * then stored in the tensor's dtype: a float64 run holds exactly the values
 * a candidate sees, a bfloat16 tensor the float32 value rounded once more
 * (a bf16 run's .to(torch.bfloat16) of the float32 draw). Structures act on the distribution's draw G and are kept
 * under every distribution: triu/tril and (G + G^T) / 2 over the last two
 * dims, G * s with one U[0,1) factor s per draw and tensor, a softmax over
 * each last-dim row (in double), and +-1 signs from randint(0, 2). D1-D4's
 * factor multiplies the result (dist.h), and an extra config's pattern
 * replaces its input, as on the CPU (cpu_fill.c). */
#include <cuda_fp16.h>

#include "cuda/cuda_device.h"
#include "dist/dist.h"
#include "graph/problem.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

template <typename S> __device__ __forceinline__ S store(double v) { return (S)v; }
template <> __device__ __forceinline__ uint8_t store<uint8_t>(double v) { return v != 0.0; }
template <> __device__ __forceinline__ __half store<__half>(double v) { return __double2half(v); }
template <> __device__ __forceinline__ bf16 store<bf16>(double v) { return bf16(v); }
template <typename S> __device__ __forceinline__ S store_int(int64_t v) { return (S)v; }
template <> __device__ __forceinline__ bf16 store_int<bf16>(int64_t v) { return bf16((double)v); }
template <> __device__ __forceinline__ uint8_t store_int<uint8_t>(int64_t v) { return v != 0; }
template <> __device__ __forceinline__ __half store_int<__half>(int64_t v)
{
    return __double2half((double)v);
}

/* v as a value of the logical float dtype. */
__device__ __forceinline__ double as_logical(int logical, double v)
{
    if (logical == KBV_F64)
        return v;
    if (logical == KBV_F16)
        return (double)__half2float(__double2half(v));
    return (double)(float)v;
}

__device__ __forceinline__ double draw(const kbv_cuda_fill_spec &sp, int64_t i)
{
    return as_logical(sp.logical, kbv_dist_value((kbv_dist)sp.dist, sp.gen == KBV_GEN_RANDN,
                                                 sp.seed, sp.key, (uint64_t)i, sp.row_len));
}

/* The torch.rand(()) factor of a scaled input: one per draw and tensor. */
__device__ __forceinline__ double scale_factor(const kbv_cuda_fill_spec &sp)
{
    return as_logical(sp.logical, kbv_u01(kbv_rng(sp.seed, sp.key, KBV_RNG_TENSOR, 0).v[0]));
}

/* v, an element as get_inputs() makes it, times D1-D4's factor in the
 * input's dtype (the paper's `t * factor`). */
__device__ __forceinline__ double times_factor(const kbv_cuda_fill_spec &sp, double v)
{
    return sp.factor == 1.0 ? v
                            : as_logical(sp.logical, kbv_scale_value(sp.logical, v, sp.factor));
}

/* A float element under an elementwise or matrix structure. */
__device__ __forceinline__ double structured(const kbv_cuda_fill_spec &sp, int64_t i)
{
    if (sp.structure == KBV_STRUCT_NONE)
        return draw(sp, i);
    if (sp.structure == KBV_STRUCT_SCALED)
        return as_logical(sp.logical, draw(sp, i) * scale_factor(sp));
    const int64_t c = i % sp.cols;
    const int64_t r = (i / sp.cols) % sp.rows;
    if (sp.structure == KBV_STRUCT_TRIU)
        return c < r ? 0.0 : draw(sp, i);
    if (sp.structure == KBV_STRUCT_TRIL)
        return c > r ? 0.0 : draw(sp, i);
    /* symmetric: (G + G^T) / 2 in the logical dtype's arithmetic (float unless float64) */
    const int64_t base = i - (r * sp.cols + c);
    const double gij = draw(sp, i), gji = draw(sp, base + c * sp.cols + r);
    if (sp.logical == KBV_F64)
        return (gij + gji) * 0.5;
    const float sum = (float)gij + (float)gji;
    return (double)(sum * 0.5f);
}

template <typename S>
__global__ void __launch_bounds__(kThreads) fill_input_kernel(kbv_cuda_fill_spec sp, S *out)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < sp.n; i += step) {
        S v;
        if (sp.pattern != KBV_PATTERN_NONE)
            v = store<S>(as_logical(sp.logical, kbv_pattern_value(sp.pattern, (uint64_t)i)));
        else if (sp.gen == KBV_GEN_RANDINT && sp.structure == KBV_STRUCT_SIGNS)
            v = store<S>(times_factor(
                sp, (double)(2 * kbv_randint_value(sp.seed, sp.key, (uint64_t)i, 0, 2) - 1)));
        else if (sp.gen == KBV_GEN_RANDINT)
            v = store_int<S>(kbv_randint_value(sp.seed, sp.key, (uint64_t)i, sp.low, sp.high));
        else if (sp.gen == KBV_GEN_SCALAR) /* a Python float meets a float32 tensor as float32 */
            v = store<S>(sp.logical == KBV_F32 ? (double)(float)sp.value : sp.value);
        else
            v = store<S>(times_factor(sp, structured(sp, i)));
        out[i] = v;
    }
}

/* Whether a fill is a float32 torch.rand draw under the base generator or
 * D1-D5, with neither structure nor pattern: most of the inputs of level 1,
 * and the one case worth its own kernel. */
bool is_plain_rand_f32(const kbv_cuda_fill_spec &sp)
{
    return sp.dtype == KBV_F32 && sp.logical == KBV_F32 && sp.gen == KBV_GEN_RAND &&
           sp.structure == KBV_STRUCT_NONE && sp.pattern == KBV_PATTERN_NONE &&
           sp.dist >= KBV_DIST_BASE && sp.dist <= KBV_DIST_D5;
}

/* The same values as fill_input_kernel's in float arithmetic, which is exact
 * here: kbv_u01's 24-bit integer times 2^-24 is a float, and a float times
 * the factor rounded once is the double product (exact for two floats)
 * rounded to float, as kbv_scale_value and the rounding to float32 make it.
 * The double path's conversions, several per element, cost more than the
 * memory does. */
__global__ void __launch_bounds__(kThreads) fill_rand_f32_kernel(kbv_cuda_fill_spec sp, float *out)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const float factor = (float)sp.factor;
    const bool scaled = sp.factor != 1.0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < sp.n; i += step) {
        const uint32_t bits = kbv_rng(sp.seed, sp.key, KBV_RNG_ELEMENT, (uint64_t)i).v[0];
        const float u = (float)(bits >> 8) * (1.0f / 16777216.0f);
        out[i] = scaled ? u * factor : u;
    }
}

/* The draw of a softmax-structured element before the softmax. */
__device__ __forceinline__ double softmax_arg(const kbv_cuda_fill_spec &sp, int64_t i, double s,
                                              bool scaled)
{
    double g = draw(sp, i);
    return scaled ? as_logical(sp.logical, g * s) : g;
}

/* Softmax structures: one warp per last-dim row, in double, three passes
 * over the (recomputed) draws. */
template <typename S>
__global__ void __launch_bounds__(kThreads) fill_softmax_kernel(kbv_cuda_fill_spec sp, S *out)
{
    const bool scaled = sp.structure == KBV_STRUCT_SCALED_SOFTMAX;
    const double s = scaled ? scale_factor(sp) : 1.0;
    const int64_t len = sp.cols, rows = sp.n / sp.cols;
    const int lid = threadIdx.x % 32;
    const int64_t nwarps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows;
         row += nwarps) {
        const int64_t base = row * len;
        double mx = -INFINITY, sum = 0.0;
        for (int64_t k = lid; k < len; k += 32) {
            double g = softmax_arg(sp, base + k, s, scaled);
            mx = g > mx ? g : mx;
        }
        for (int off = 16; off > 0; off >>= 1) {
            double o = __shfl_xor_sync(0xffffffffu, mx, off);
            mx = o > mx ? o : mx;
        }
        for (int64_t k = lid; k < len; k += 32)
            sum += exp(softmax_arg(sp, base + k, s, scaled) - mx);
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        for (int64_t k = lid; k < len; k += 32)
            out[base + k] = store<S>(times_factor(
                sp, as_logical(sp.logical, exp(softmax_arg(sp, base + k, s, scaled) - mx) / sum)));
    }
}

template <typename S>
__global__ void __launch_bounds__(kThreads)
fill_param_kernel(int logical, int kind, int64_t fan_in, double value, int d5, uint64_t seed,
                  uint32_t key, int64_t n, S *out)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        double v = kbv_param_value(kind, fan_in, value, d5, seed, key, (uint64_t)i);
        out[i] = store<S>(logical == KBV_F32 ? (double)(float)v : v);
    }
}

template <typename S>
cudaError_t fill_input_typed(cudaStream_t s, int sms, const kbv_cuda_fill_spec *sp, void *out)
{
    if (sp->pattern == KBV_PATTERN_NONE &&
        (sp->structure == KBV_STRUCT_SOFTMAX || sp->structure == KBV_STRUCT_SCALED_SOFTMAX)) {
        auto kernel = fill_softmax_kernel<S>;
        kernel<<<grid_for(kernel, kThreads, sms, (sp->n / sp->cols) * 32), kThreads, 0, s>>>(
            *sp, static_cast<S *>(out));
    } else if (is_plain_rand_f32(*sp)) {
        fill_rand_f32_kernel<<<grid_for(fill_rand_f32_kernel, kThreads, sms, sp->n), kThreads, 0,
                               s>>>(*sp, static_cast<float *>(out));
    } else {
        auto kernel = fill_input_kernel<S>;
        kernel<<<grid_for(kernel, kThreads, sms, sp->n), kThreads, 0, s>>>(*sp,
                                                                            static_cast<S *>(out));
    }
    return cudaGetLastError();
}

template <typename S>
cudaError_t fill_param_typed(cudaStream_t s, int sms, int logical, int kind, int64_t fan_in,
                             double value, int d5, uint64_t seed, uint32_t key, int64_t n,
                             void *out)
{
    auto kernel = fill_param_kernel<S>;
    kernel<<<grid_for(kernel, kThreads, sms, n), kThreads, 0, s>>>(
        logical, kind, fan_in, value, d5, seed, key, n, static_cast<S *>(out));
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_fill_input(cudaStream_t s, int sms,
                                                  const kbv_cuda_fill_spec *spec, void *out)
{
    if (spec->n <= 0)
        return cudaSuccess;
    if (spec->structure != KBV_STRUCT_NONE && (spec->rows <= 0 || spec->cols <= 0))
        return cudaErrorInvalidValue;
    switch (spec->dtype) {
    case KBV_F32: return fill_input_typed<float>(s, sms, spec, out);
    case KBV_F64: return fill_input_typed<double>(s, sms, spec, out);
    case KBV_F16: return fill_input_typed<__half>(s, sms, spec, out);
    case KBV_BF16: return fill_input_typed<bf16>(s, sms, spec, out);
    case KBV_I32: return fill_input_typed<int32_t>(s, sms, spec, out);
    case KBV_I64: return fill_input_typed<int64_t>(s, sms, spec, out);
    case KBV_BOOL: return fill_input_typed<uint8_t>(s, sms, spec, out);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t kbv_cuda_launch_fill_param(cudaStream_t s, int sms, kbv_dtype dtype,
                                                  kbv_dtype logical, int kind, int64_t fan_in,
                                                  double value, int d5, uint64_t seed,
                                                  uint32_t key, int64_t n, void *out)
{
    if (n <= 0)
        return cudaSuccess;
    switch (dtype) {
    case KBV_F32:
        return fill_param_typed<float>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    case KBV_F64:
        return fill_param_typed<double>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    case KBV_F16:
        return fill_param_typed<__half>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    case KBV_BF16:
        return fill_param_typed<bf16>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    case KBV_I32:
        return fill_param_typed<int32_t>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    case KBV_I64:
        return fill_param_typed<int64_t>(s, sms, logical, kind, fan_in, value, d5, seed, key, n, out);
    default: return cudaErrorInvalidValue;
    }
}
