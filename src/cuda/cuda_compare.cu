/* Evaluator services on the device: comparing a candidate's output with its
 * references (the fields of cpu/cpu_compare.c, element for element, the strict
 * ones by exec/strict_rule.h as there), hashing
 * buffers, writing the NaN poison, and conversion between the float types.
 *
 * The comparison is one pass: each block reduces its grid-stride share and
 * writes one partial, and a one-block kernel folds the partials in a fixed
 * order, so the double sums are the same from run to run on one GPU. */
#include <math.h>

#include <cuda_fp16.h>

#include "cuda/cuda_device.h"
#include "exec/strict_rule.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;
constexpr int kCompareBlocksPerSm = 4;
constexpr int kMaxPartials = 2048;
constexpr long long kNone = 0x7fffffffffffffffLL;
constexpr unsigned kPoison32 = 0x7FF0DEADu;       /* KBV_POISON_F32 (exec/backend.h) */
constexpr unsigned kPoisonHalf2 = 0x7FF07FF0u;    /* KBV_POISON_HALF2 */
constexpr unsigned long long kPoison64 = 0x7FF0DEAD7FF0DEADull;
constexpr int kAccWords = sizeof(kbv_cuda_compare_acc) / 8;
static_assert(sizeof(kbv_cuda_compare_acc) % 8 == 0, "accumulator fields are 8-byte words");

/* Element i as a double (exact for every supported dtype). */
__device__ __forceinline__ double load(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case KBV_F32: return (double)static_cast<const float *>(p)[i];
    case KBV_F64: return static_cast<const double *>(p)[i];
    case KBV_F16: return (double)__half2float(static_cast<const __half *>(p)[i]);
    case KBV_BF16: return (double)float(static_cast<const bf16 *>(p)[i]);
    case KBV_I32: return (double)static_cast<const int32_t *>(p)[i];
    case KBV_I64: return (double)static_cast<const int64_t *>(p)[i];
    default: return (double)static_cast<const uint8_t *>(p)[i];
    }
}

/* Whether element i still holds the poison: the 4-byte pattern repeated
 * from the tensor's (4-byte aligned) start (KBV_POISON_HALF2 for 2-byte
 * floats: 0x7FF0 in every element). */
__device__ __forceinline__ bool is_poison(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case KBV_F32:
    case KBV_I32: return static_cast<const uint32_t *>(p)[i] == kPoison32;
    case KBV_F64:
    case KBV_I64: return static_cast<const unsigned long long *>(p)[i] == kPoison64;
    case KBV_F16:
    case KBV_BF16: return static_cast<const uint16_t *>(p)[i] == (uint16_t)(kPoisonHalf2 & 0xFFFFu);
    default: return static_cast<const uint8_t *>(p)[i] == (uint8_t)(kPoison32 >> (8 * (i % 4)));
    }
}

__device__ __forceinline__ void acc_init(kbv_cuda_compare_acc &a)
{
    a.poison_left = a.cand_nonfinite = a.cand_nan = a.ref_nonfinite = a.allclose_fail = 0;
    a.unjudged = a.oracle_nonfinite = a.class_fail = 0;
    a.allclose_first = a.strict_first = kNone;
    a.max_abs_diff = a.sq_err = a.sq_ref = a.max_err = a.max_ref = 0.0;
}

__device__ __forceinline__ void acc_combine(kbv_cuda_compare_acc &a, const kbv_cuda_compare_acc &b)
{
    a.poison_left += b.poison_left;
    a.cand_nonfinite += b.cand_nonfinite;
    a.cand_nan += b.cand_nan;
    a.ref_nonfinite += b.ref_nonfinite;
    a.allclose_fail += b.allclose_fail;
    a.unjudged += b.unjudged;
    a.oracle_nonfinite += b.oracle_nonfinite;
    a.class_fail += b.class_fail;
    a.allclose_first = min(a.allclose_first, b.allclose_first);
    a.strict_first = min(a.strict_first, b.strict_first);
    a.max_abs_diff = fmax(a.max_abs_diff, b.max_abs_diff);
    a.sq_err += b.sq_err;
    a.sq_ref += b.sq_ref;
    a.max_err = fmax(a.max_err, b.max_err);
    a.max_ref = fmax(a.max_ref, b.max_ref);
}

union AccWords {
    kbv_cuda_compare_acc acc;
    unsigned long long w[kAccWords];
};

/* Thread 0 gets the block's combination of every thread's accumulator. */
__device__ void block_reduce(kbv_cuda_compare_acc &a)
{
    __shared__ kbv_cuda_compare_acc warp_acc[32];
    AccWords u;
    u.acc = a;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        AccWords o;
#pragma unroll
        for (int k = 0; k < kAccWords; k++)
            o.w[k] = __shfl_down_sync(0xffffffffu, u.w[k], off);
        acc_combine(u.acc, o.acc);
    }
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32, nwarps = blockDim.x / 32;
    if (lid == 0)
        warp_acc[warp] = u.acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < nwarps; k++)
            acc_combine(u.acc, warp_acc[k]);
        a = u.acc;
    }
}

__global__ void __launch_bounds__(kThreads)
compare_kernel(kbv_cuda_compare_args x, kbv_cuda_compare_acc *__restrict__ partials)
{
    kbv_cuda_compare_acc a;
    acc_init(a);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const double max_finite = kbv_strict_max_finite(x.cand_dtype);
    const double band = kbv_strict_band(x.cand_dtype);
    const bool ref_is_cand = x.ref == x.cand && x.ref_dtype == x.cand_dtype;
    const bool strict_is_ref = x.ref && x.strict == x.ref && x.strict_dtype == x.ref_dtype;
    const bool strict_is_cand = x.strict == x.cand && x.strict_dtype == x.cand_dtype;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < x.n; i += step) {
        const double c = load(x.cand, x.cand_dtype, i);
        const bool c_finite = isfinite(c);
        a.poison_left += is_poison(x.cand, x.cand_dtype, i);
        a.cand_nonfinite += !c_finite;
        a.cand_nan += c != c;
        /* a reference that is the candidate's (or the other reference's)
         * buffer is read once: with the modes that run the same code sharing
         * their outputs (eval/references.c), that is most of them */
        double r = 0.0;
        if (x.ref) {
            r = ref_is_cand ? c : load(x.ref, x.ref_dtype, i);
            if (!isfinite(r)) {
                a.ref_nonfinite++;
            } else {
                bool fail = !c_finite;
                if (c_finite) {
                    double d = fabs(c - r);
                    a.max_abs_diff = fmax(a.max_abs_diff, d);
                    /* no fused multiply-add: the same bound as the CPU backend's */
                    fail = d > __dadd_rn(x.atol, __dmul_rn(x.rtol, fabs(r)));
                }
                if (fail) {
                    a.allclose_fail++;
                    a.allclose_first = min(a.allclose_first, (long long)i);
                }
            }
        }
        if (x.oracle) {
            const double o = load(x.oracle, x.oracle_dtype, i);
            const double sv = !x.strict     ? 0.0
                              : strict_is_ref  ? r
                              : strict_is_cand ? c
                                               : load(x.strict, x.strict_dtype, i);
            const kbv_strict_outcome k =
                kbv_strict_element_in(c, o, sv, x.strict != nullptr, max_finite, band);
            if (!kbv_strict_judged(k)) {
                a.unjudged++;
                a.oracle_nonfinite += k == KBV_STRICT_ORACLE_NONFINITE;
            } else if (k == KBV_STRICT_WRONG_CLASS) {
                a.class_fail++;
                a.strict_first = min(a.strict_first, (long long)i);
            } else if (k == KBV_STRICT_FINITE) { /* its error counts */
                double e = c - o;
                a.sq_err += e * e;
                a.sq_ref += o * o;
                a.max_err = fmax(a.max_err, fabs(e));
                a.max_ref = fmax(a.max_ref, fabs(o));
            }
        }
    }
    block_reduce(a);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = a;
}

/* One block: folds the partials in index order. */
__global__ void __launch_bounds__(kThreads)
compare_finish_kernel(const kbv_cuda_compare_acc *__restrict__ partials, int n_partials,
                      kbv_cuda_compare_acc *__restrict__ result)
{
    kbv_cuda_compare_acc a;
    acc_init(a);
    for (int i = threadIdx.x; i < n_partials; i += blockDim.x)
        acc_combine(a, partials[i]);
    block_reduce(a);
    if (threadIdx.x == 0)
        *result = a;
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    unsigned long long z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Word i of the buffer, little-endian, zero-padded past the end. */
__device__ __forceinline__ unsigned long long word_at(const unsigned char *p, size_t bytes,
                                                      size_t i, bool aligned8)
{
    if (aligned8 && (i + 1) * 8 <= bytes)
        return reinterpret_cast<const unsigned long long *>(p)[i];
    unsigned long long w = 0;
    for (int b = 0; b < 8; b++) {
        size_t at = i * 8 + b;
        if (at < bytes)
            w |= (unsigned long long)p[at] << (8 * b);
    }
    return w;
}

__global__ void __launch_bounds__(kThreads)
hash_kernel(const unsigned char *__restrict__ p, size_t bytes, bool aligned8,
            unsigned long long *__restrict__ result)
{
    const size_t words = (bytes + 7) / 8;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    unsigned long long h = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += step)
        h += splitmix64(word_at(p, bytes, i, aligned8) ^ (unsigned long long)i);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        h += __shfl_down_sync(0xffffffffu, h, off);
    if (threadIdx.x % 32 == 0)
        atomicAdd(result, h); /* integer sums commute: order does not matter */
}

__global__ void __launch_bounds__(kThreads)
poison_kernel(unsigned char *__restrict__ p, size_t bytes, bool aligned16, unsigned word)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t done = 0;
    if (aligned16) {
        const size_t nvec = bytes / 16;
        uint4 v = make_uint4(word, word, word, word);
        for (size_t i = tid; i < nvec; i += step)
            reinterpret_cast<uint4 *>(p)[i] = v;
        done = nvec * 16;
    }
    /* the rest byte by byte, each byte the pattern's byte at its offset mod 4 */
    for (size_t i = done + tid; i < bytes; i += step)
        p[i] = (unsigned char)(word >> (8 * (i % 4)));
}

__global__ void __launch_bounds__(kThreads)
convert_kernel(const void *__restrict__ src, int src_dtype, void *__restrict__ dst, int dst_dtype,
               int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const double v = load(src, src_dtype, i);
        switch (dst_dtype) {
        case KBV_F32: static_cast<float *>(dst)[i] = (float)v; break;
        case KBV_F64: static_cast<double *>(dst)[i] = v; break;
        case KBV_BF16: static_cast<bf16 *>(dst)[i] = bf16(v); break;
        default: static_cast<__half *>(dst)[i] = __double2half(v); break;
        }
    }
}

} /* namespace */

extern "C" int kbv_cuda_compare_grid(int sms)
{
    int grid = (sms > 0 ? sms : 1) * kCompareBlocksPerSm;
    return grid < kMaxPartials ? grid : kMaxPartials;
}

extern "C" cudaError_t kbv_cuda_launch_compare(cudaStream_t s, int sms,
                                               const kbv_cuda_compare_args *args,
                                               kbv_cuda_compare_acc *partials,
                                               kbv_cuda_compare_acc *result)
{
    const int grid = kbv_cuda_compare_grid(sms);
    compare_kernel<<<grid, kThreads, 0, s>>>(*args, partials);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    compare_finish_kernel<<<1, kThreads, 0, s>>>(partials, grid, result);
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_hash(cudaStream_t s, int sms, const void *data, size_t bytes,
                                            unsigned long long *result)
{
    cudaError_t err = cudaMemsetAsync(result, 0, sizeof *result, s);
    if (err != cudaSuccess || bytes == 0)
        return err;
    const bool aligned8 = ((uintptr_t)data & 7u) == 0;
    unsigned grid = grid_for(hash_kernel, kThreads, sms, (int64_t)((bytes + 7) / 8));
    hash_kernel<<<grid, kThreads, 0, s>>>(static_cast<const unsigned char *>(data), bytes, aligned8,
                                          result);
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_poison(cudaStream_t s, int sms, void *data, size_t bytes,
                                              uint32_t word)
{
    if (bytes == 0)
        return cudaSuccess;
    const bool a16 = aligned16(data);
    unsigned grid = grid_for(poison_kernel, kThreads, sms, (int64_t)(a16 ? bytes / 16 + 16 : bytes));
    poison_kernel<<<grid, kThreads, 0, s>>>(static_cast<unsigned char *>(data), bytes, a16, word);
    return cudaGetLastError();
}

extern "C" cudaError_t kbv_cuda_launch_convert(cudaStream_t s, int sms, const void *src,
                                               kbv_dtype src_dtype, void *dst, kbv_dtype dst_dtype,
                                               int64_t n)
{
    auto is_float = [](kbv_dtype dt) {
        return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16 || dt == KBV_BF16;
    };
    if (!is_float(src_dtype) || !is_float(dst_dtype))
        return cudaErrorInvalidValue;
    if (n <= 0)
        return cudaSuccess;
    if (src_dtype == dst_dtype) {
        const size_t esize = src_dtype == KBV_F64 ? 8 : src_dtype == KBV_F32 ? 4 : 2;
        return cudaMemcpyAsync(dst, src, (size_t)n * esize, cudaMemcpyDeviceToDevice, s);
    }
    convert_kernel<<<grid_for(convert_kernel, kThreads, sms, n), kThreads, 0, s>>>(src, src_dtype, dst,
                                                                                  dst_dtype, n);
    return cudaGetLastError();
}
