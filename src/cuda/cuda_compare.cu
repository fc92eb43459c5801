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

/* How a fetched element waits in registers until it is used: the narrow
 * float types as float, which holds them exactly, so that the elements
 * fetched ahead take half the registers they would as doubles. */
template <int Dt> struct Held { using T = double; };
template <> struct Held<KBV_F32> { using T = float; };
template <> struct Held<KBV_F16> { using T = float; };
template <> struct Held<KBV_BF16> { using T = float; };

/* Element i (exact) and whether it is the poison, for a dtype known at
 * compile time (Dt >= 0) or read at run time (Dt < 0). A known dtype makes
 * the fetch one straight load, which the unrolled loop can issue ahead: a
 * load behind a run-time switch cannot be, and the comparison then waits on
 * memory for every element. */
template <int Dt>
__device__ __forceinline__ typename Held<Dt>::T load_as(const void *p, int dt, int64_t i)
{
    if constexpr (Dt == KBV_F32)
        return static_cast<const float *>(p)[i];
    else if constexpr (Dt == KBV_F16)
        return __half2float(static_cast<const __half *>(p)[i]);
    else if constexpr (Dt == KBV_BF16)
        return float(static_cast<const bf16 *>(p)[i]);
    else if constexpr (Dt < 0)
        return load(p, dt, i);
    else
        return load(p, Dt, i);
}

template <int Dt>
__device__ __forceinline__ typename Held<Dt>::T load_checked(const void *p, int dt, int64_t i,
                                                             bool *poison)
{
    if constexpr (Dt == KBV_F32) {
        const float v = static_cast<const float *>(p)[i];
        *poison = __float_as_uint(v) == kPoison32;
        return v;
    } else if constexpr (Dt == KBV_F64) {
        const double v = static_cast<const double *>(p)[i];
        *poison = (unsigned long long)__double_as_longlong(v) == kPoison64;
        return v;
    } else if constexpr (Dt == KBV_F16 || Dt == KBV_BF16) {
        const uint16_t bits = static_cast<const uint16_t *>(p)[i];
        *poison = bits == (uint16_t)(kPoisonHalf2 & 0xFFFFu);
        return load_as<Dt>(p, dt, i);
    } else {
        *poison = is_poison(p, dt, i);
        return load(p, dt, i);
    }
}

__device__ __forceinline__ void acc_init(kbv_cuda_compare_acc &a)
{
    a.poison_left = a.cand_nonfinite = a.cand_nan = a.ref_nonfinite = a.allclose_fail = 0;
    a.unjudged = a.oracle_nonfinite = a.class_fail = 0;
    a.allclose_first = a.strict_first = kNone;
    a.max_abs_diff = a.sq_err = a.sq_ref = a.max_err = a.max_ref = 0.0;
    a.budget_sq_err = a.budget_sq_ref = a.budget_max_err = a.budget_max_ref = 0.0;
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
    a.budget_sq_err += b.budget_sq_err;
    a.budget_sq_ref += b.budget_sq_ref;
    a.budget_max_err = fmax(a.budget_max_err, b.budget_max_err);
    a.budget_max_ref = fmax(a.budget_max_ref, b.budget_max_ref);
}

/* a combined with the accumulator `off` lanes down, field by field (in
 * acc_combine's way), so no second accumulator is held in registers. */
__device__ __forceinline__ void acc_combine_down(kbv_cuda_compare_acc &a, int off)
{
    constexpr unsigned all = 0xffffffffu;
    a.poison_left += __shfl_down_sync(all, a.poison_left, off);
    a.cand_nonfinite += __shfl_down_sync(all, a.cand_nonfinite, off);
    a.cand_nan += __shfl_down_sync(all, a.cand_nan, off);
    a.ref_nonfinite += __shfl_down_sync(all, a.ref_nonfinite, off);
    a.allclose_fail += __shfl_down_sync(all, a.allclose_fail, off);
    a.unjudged += __shfl_down_sync(all, a.unjudged, off);
    a.oracle_nonfinite += __shfl_down_sync(all, a.oracle_nonfinite, off);
    a.class_fail += __shfl_down_sync(all, a.class_fail, off);
    a.allclose_first = min(a.allclose_first, __shfl_down_sync(all, a.allclose_first, off));
    a.strict_first = min(a.strict_first, __shfl_down_sync(all, a.strict_first, off));
    a.max_abs_diff = fmax(a.max_abs_diff, __shfl_down_sync(all, a.max_abs_diff, off));
    a.sq_err += __shfl_down_sync(all, a.sq_err, off);
    a.sq_ref += __shfl_down_sync(all, a.sq_ref, off);
    a.max_err = fmax(a.max_err, __shfl_down_sync(all, a.max_err, off));
    a.max_ref = fmax(a.max_ref, __shfl_down_sync(all, a.max_ref, off));
    a.budget_sq_err += __shfl_down_sync(all, a.budget_sq_err, off);
    a.budget_sq_ref += __shfl_down_sync(all, a.budget_sq_ref, off);
    a.budget_max_err = fmax(a.budget_max_err, __shfl_down_sync(all, a.budget_max_err, off));
    a.budget_max_ref = fmax(a.budget_max_ref, __shfl_down_sync(all, a.budget_max_ref, off));
}

/* Thread 0 gets the block's combination of every thread's accumulator. */
__device__ void block_reduce(kbv_cuda_compare_acc &a)
{
    __shared__ kbv_cuda_compare_acc warp_acc[32];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        acc_combine_down(a, off);
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32, nwarps = blockDim.x / 32;
    if (lid == 0)
        warp_acc[warp] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < nwarps; k++)
            acc_combine(a, warp_acc[k]);
    }
}

/* A thread's share of a comparison while it visits its elements: the
 * counts in 32 bits (a thread visits at most n / (grid * kThreads) + 1
 * elements, and the launcher checks that this fits), widened only when the
 * block reduces them, so that fewer registers hold it; Budget adds the budget
 * baseline's error sums. */
template <bool Budget> struct ThreadAcc {
    unsigned poison_left = 0, cand_nonfinite = 0, cand_nan = 0, ref_nonfinite = 0;
    unsigned allclose_fail = 0, unjudged = 0, oracle_nonfinite = 0, class_fail = 0;
    long long allclose_first = kNone, strict_first = kNone;
    double max_abs_diff = 0, sq_err = 0, sq_ref = 0, max_err = 0, max_ref = 0;
};
template <> struct ThreadAcc<true> : ThreadAcc<false> {
    double budget_sq_err = 0, budget_sq_ref = 0, budget_max_err = 0, budget_max_ref = 0;
};

/* The thread's share as the block reduces it: every field 8 bytes. */
template <bool Budget>
__device__ __forceinline__ kbv_cuda_compare_acc acc_of(const ThreadAcc<Budget> &t)
{
    kbv_cuda_compare_acc a;
    a.poison_left = t.poison_left;
    a.cand_nonfinite = t.cand_nonfinite;
    a.cand_nan = t.cand_nan;
    a.ref_nonfinite = t.ref_nonfinite;
    a.allclose_fail = t.allclose_fail;
    a.unjudged = t.unjudged;
    a.oracle_nonfinite = t.oracle_nonfinite;
    a.class_fail = t.class_fail;
    a.allclose_first = t.allclose_first;
    a.strict_first = t.strict_first;
    a.max_abs_diff = t.max_abs_diff;
    a.sq_err = t.sq_err;
    a.sq_ref = t.sq_ref;
    a.max_err = t.max_err;
    a.max_ref = t.max_ref;
    a.budget_sq_err = a.budget_sq_ref = a.budget_max_err = a.budget_max_ref = 0.0;
    if constexpr (Budget) {
        a.budget_sq_err = t.budget_sq_err;
        a.budget_sq_ref = t.budget_sq_ref;
        a.budget_max_err = t.budget_max_err;
        a.budget_max_ref = t.budget_max_ref;
    }
    return a;
}

/* A judged finite element's error against the oracle o, into the sums: one
 * function for the candidate's and the budget's, so that a budget judged
 * beside a candidate sums as it does judged alone. */
__device__ __forceinline__ void error_add(double &sq_err, double &sq_ref, double &max_err,
                                          double &max_ref, double v, double o)
{
    const double err = v - o;
    sq_err += err * err;
    sq_ref += o * o;
    max_err = fmax(max_err, fabs(err));
    max_ref = fmax(max_ref, fabs(o));
}

/* The values one element contributes, loaded before any is used so that a
 * thread has several elements' loads in flight (the comparison is a stream
 * over three to five tensors: its pace is the memory's); Cd as below. */
template <int Cd> struct CompareElem {
    typename Held<Cd>::T c, r, sv, b;
    double o;
    bool poison;
};

/* Which operands are the same buffer as another, each then read once: with
 * the modes that run the same code sharing their outputs (eval/references.c),
 * that is most of them. */
struct CompareShared {
    bool ref_is_cand, strict_is_ref, strict_is_cand, budget_is_ref, budget_is_strict;
};

__device__ __forceinline__ bool same(const void *p, kbv_dtype pd, const void *q, kbv_dtype qd)
{
    return p && p == q && pd == qd;
}

/* Cd: the candidate's dtype, which the references share, or -1 when they
 * do not (each read by its own dtype); the oracle is float64 when Cd >= 0.
 * Oracle: whether there is one (strict's fields); Budget: whether a budget
 * baseline is judged too (only with an oracle); both known at compile time. */
template <int Cd, bool Oracle, bool Budget>
__device__ __forceinline__ CompareElem<Cd> compare_fetch(const kbv_cuda_compare_args &x,
                                                         const CompareShared &sh, int64_t i)
{
    constexpr int Od = Cd < 0 ? -1 : KBV_F64;
    CompareElem<Cd> e;
    e.c = load_checked<Cd>(x.cand, x.cand_dtype, i, &e.poison);
    e.r = !x.ref ? 0 : sh.ref_is_cand ? e.c : load_as<Cd>(x.ref, x.ref_dtype, i);
    e.o = Oracle ? load_as<Od>(x.oracle, x.oracle_dtype, i) : 0.0;
    e.sv = !Oracle || !x.strict ? 0
           : sh.strict_is_ref     ? e.r
           : sh.strict_is_cand    ? e.c
                                  : load_as<Cd>(x.strict, x.strict_dtype, i);
    e.b = !Budget                ? 0
          : sh.budget_is_ref     ? e.r
          : sh.budget_is_strict  ? e.sv
                                 : load_as<Cd>(x.budget, x.budget_dtype, i);
    return e;
}

template <int Cd, bool Oracle, bool Budget>
__device__ __forceinline__ void compare_visit(ThreadAcc<Budget> &a,
                                              const kbv_cuda_compare_args &x, double max_finite,
                                              double band, double budget_max_finite,
                                              double budget_band, const CompareElem<Cd> &e,
                                              int64_t i)
{
    /* finiteness and NaN tested on the value as held (a float for the narrow
     * types: the same answer as its double's, without double-precision work) */
    const double c = e.c;
    const bool c_finite = isfinite(e.c);
    a.poison_left += e.poison;
    a.cand_nonfinite += !c_finite;
    a.cand_nan += e.c != e.c;
    if (x.ref) {
        const double r = e.r;
        if (!isfinite(e.r)) {
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
    if (Oracle) {
        const double o = e.o;
        const bool have_strict = x.strict != nullptr;
        /* the truth's class once for the candidate and the budget (kbv_strict_element_in
         * in two steps; a budget of another dtype has its own bounds) */
        const kbv_strict_outcome truth =
            kbv_strict_truth(o, have_strict && isfinite(e.sv), have_strict, max_finite, band);
        const kbv_strict_outcome k = kbv_strict_of(truth, c_finite);
        if (!kbv_strict_judged(k)) {
            a.unjudged++;
            a.oracle_nonfinite += k == KBV_STRICT_ORACLE_NONFINITE;
        } else if (k == KBV_STRICT_WRONG_CLASS) {
            a.class_fail++;
            a.strict_first = min(a.strict_first, (long long)i);
        } else if (k == KBV_STRICT_FINITE) { /* its error counts */
            error_add(a.sq_err, a.sq_ref, a.max_err, a.max_ref, c, o);
        }
        if constexpr (Budget) {
            const kbv_strict_outcome budget_truth =
                Cd >= 0 ? truth
                        : kbv_strict_truth(o, have_strict && isfinite(e.sv), have_strict,
                                           budget_max_finite, budget_band);
            if (kbv_strict_of(budget_truth, isfinite(e.b)) == KBV_STRICT_FINITE)
                error_add(a.budget_sq_err, a.budget_sq_ref, a.budget_max_err, a.budget_max_ref,
                          (double)e.b, o);
        }
    }
}

/* Each thread visits its grid-stride elements in index order (two fetched
 * ahead), so its sums, and the partials, do not depend on the unrolling or
 * on which instance runs. The register bound keeps the whole grid resident:
 * one more block per SM than fit would run as a second, nearly empty wave. */
template <int Cd, bool Oracle, bool Budget>
__global__ void __launch_bounds__(kThreads, kCompareBlocksPerSm)
compare_kernel(kbv_cuda_compare_args x, kbv_cuda_compare_acc *__restrict__ partials)
{
    ThreadAcc<Budget> a;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const double max_finite = kbv_strict_max_finite(x.cand_dtype);
    const double band = kbv_strict_band(x.cand_dtype);
    /* a known dtype is the budget's too: the same bounds, in no more registers */
    const double budget_max_finite =
        !Budget ? 0.0 : Cd >= 0 ? max_finite : kbv_strict_max_finite(x.budget_dtype);
    const double budget_band = !Budget ? 0.0 : Cd >= 0 ? band : kbv_strict_band(x.budget_dtype);
    CompareShared sh;
    sh.ref_is_cand = same(x.ref, x.ref_dtype, x.cand, x.cand_dtype);
    sh.strict_is_ref = same(x.strict, x.strict_dtype, x.ref, x.ref_dtype);
    sh.strict_is_cand = same(x.strict, x.strict_dtype, x.cand, x.cand_dtype);
    sh.budget_is_ref = same(x.budget, x.budget_dtype, x.ref, x.ref_dtype);
    sh.budget_is_strict = same(x.budget, x.budget_dtype, x.strict, x.strict_dtype);
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + step < x.n; i += 2 * step) {
        const CompareElem<Cd> e0 = compare_fetch<Cd, Oracle, Budget>(x, sh, i);
        const CompareElem<Cd> e1 = compare_fetch<Cd, Oracle, Budget>(x, sh, i + step);
        compare_visit<Cd, Oracle, Budget>(a, x, max_finite, band, budget_max_finite,
                                          budget_band, e0, i);
        compare_visit<Cd, Oracle, Budget>(a, x, max_finite, band, budget_max_finite,
                                          budget_band, e1, i + step);
    }
    for (; i < x.n; i += step)
        compare_visit<Cd, Oracle, Budget>(a, x, max_finite, band, budget_max_finite,
                                          budget_band,
                                          compare_fetch<Cd, Oracle, Budget>(x, sh, i), i);
    kbv_cuda_compare_acc w = acc_of(a);
    block_reduce(w);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = w;
}

/* The candidate's dtype when every reference shares it and the oracle is
 * float64 (a float run's usual case), else -1. */
int compare_dtype(const kbv_cuda_compare_args &x)
{
    const int c = x.cand_dtype;
    const bool shared = (!x.ref || x.ref_dtype == c) && (!x.strict || x.strict_dtype == c) &&
                        (!x.budget || x.budget_dtype == c) &&
                        (!x.oracle || x.oracle_dtype == KBV_F64);
    return shared && (c == KBV_F32 || c == KBV_F64 || c == KBV_F16 || c == KBV_BF16) ? c : -1;
}

template <int Cd>
void launch_compare(cudaStream_t s, int grid, const kbv_cuda_compare_args &x,
                    kbv_cuda_compare_acc *partials)
{
    if (x.oracle && x.budget)
        compare_kernel<Cd, true, true><<<grid, kThreads, 0, s>>>(x, partials);
    else if (x.oracle)
        compare_kernel<Cd, true, false><<<grid, kThreads, 0, s>>>(x, partials);
    else
        compare_kernel<Cd, false, false><<<grid, kThreads, 0, s>>>(x, partials);
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

/* The hash is a sum over words, so any thread may take any word: each takes
 * 32-byte chunks (two 16-byte loads in flight) where the buffer is 16-byte
 * aligned, and the words past the last whole chunk one at a time. */
__global__ void __launch_bounds__(kThreads)
hash_kernel(const unsigned char *__restrict__ p, size_t bytes, bool aligned16,
            unsigned long long *__restrict__ result)
{
    const size_t words = (bytes + 7) / 8;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long h = 0;
    size_t done = 0;
    if (aligned16) {
        const size_t chunks = bytes / 32;
        const ulonglong2 *v = reinterpret_cast<const ulonglong2 *>(p);
        for (size_t c = tid; c < chunks; c += step) {
            const ulonglong2 a = v[2 * c], b = v[2 * c + 1];
            const unsigned long long w = 4 * (unsigned long long)c;
            h += splitmix64(a.x ^ w) + splitmix64(a.y ^ (w + 1)) + splitmix64(b.x ^ (w + 2)) +
                 splitmix64(b.y ^ (w + 3));
        }
        done = chunks * 4;
    }
    const bool aligned8 = ((uintptr_t)p & 7u) == 0;
    for (size_t i = done + tid; i < words; i += step)
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

/* float32 to float64, the float64 copy of every strict draw's inputs: four
 * elements a thread, in one 16-byte load and two 16-byte stores. */
__global__ void __launch_bounds__(kThreads)
widen_kernel(const float4 *__restrict__ src, double2 *__restrict__ dst, int64_t quads)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < quads; i += step) {
        const float4 v = src[i];
        dst[2 * i] = make_double2(v.x, v.y);
        dst[2 * i + 1] = make_double2(v.z, v.w);
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
    /* a thread's counts are 32-bit (ThreadAcc); a budget needs an oracle */
    if (args->n / ((int64_t)grid * kThreads) >= 0xffffffffLL || (args->budget && !args->oracle))
        return cudaErrorInvalidValue;
    switch (compare_dtype(*args)) {
    case KBV_F32: launch_compare<KBV_F32>(s, grid, *args, partials); break;
    case KBV_F64: launch_compare<KBV_F64>(s, grid, *args, partials); break;
    case KBV_F16: launch_compare<KBV_F16>(s, grid, *args, partials); break;
    case KBV_BF16: launch_compare<KBV_BF16>(s, grid, *args, partials); break;
    default: launch_compare<-1>(s, grid, *args, partials); break;
    }
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
    const bool a16 = aligned16(data);
    unsigned grid = grid_for(hash_kernel, kThreads, sms, (int64_t)((bytes + 31) / 32));
    hash_kernel<<<grid, kThreads, 0, s>>>(static_cast<const unsigned char *>(data), bytes, a16,
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
    int64_t done = 0;
    if (src_dtype == KBV_F32 && dst_dtype == KBV_F64 && aligned16(src) && aligned16(dst)) {
        const int64_t quads = n / 4;
        if (quads > 0)
            widen_kernel<<<grid_cover(kThreads, quads), kThreads, 0, s>>>(
                static_cast<const float4 *>(src), static_cast<double2 *>(dst), quads);
        done = quads * 4;
        if (done == n)
            return cudaGetLastError();
        src = static_cast<const float *>(src) + done;
        dst = static_cast<double *>(dst) + done;
    }
    convert_kernel<<<grid_for(convert_kernel, kThreads, sms, n - done), kThreads, 0, s>>>(
        src, src_dtype, dst, dst_dtype, n - done);
    return cudaGetLastError();
}
