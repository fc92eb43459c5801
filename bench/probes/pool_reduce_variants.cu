// Which pooling and middle-dim reduction kernels are fastest on this GPU?
//
// Runs every kernel of src/cuda/cuda_pool.cu (kbv_cuda_pool_algo) on the
// full-size fp32 geometries of KernelBench L1/41-46, and every kernel of
// src/cuda/cuda_reduce.cu (kbv_cuda_reduce_algo) on those of L1/47-49 and
// 51-53; checks that each agrees with the first algo (the reference kernel),
// on uniform data and on data with ties and NaNs; times each as
// bench/baselines_vs_torch.py times a call (CUDA events around one call,
// synchronised, 3 warm-ups, median of 25, no L2 flush: the tensors are GBs);
// prints one line per geometry and kernel, then a summary with the best
// kernel per problem and the ratio to PyTorch eager it projects.
//
//   nvcc -O3 -arch=sm_90a -I src -I include bench/probes/pool_reduce_variants.cu -o /tmp/probe
//   /tmp/probe            (10-15 s on an H200; needs 24 GB of GPU memory)
//
// Exit status 1 when a kernel disagrees with the current one.
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include <cuda_runtime.h>

// The kernels' own files are compiled in here, each in a namespace of its
// own: both keep their helpers in an anonymous namespace under the same
// names. Their headers come first, so that the #includes inside the files
// (all guarded) add nothing inside the namespaces; the extern "C" launchers
// they define are the global functions the headers declare.
#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_fastdiv.h"
#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"
#include "graph/ops.h"

namespace pool_source {
#include "cuda/cuda_pool.cu"
}
namespace reduce_source {
#include "cuda/cuda_reduce.cu"
}

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

namespace {

constexpr int kWarmups = 3, kReps = 25;

/* ------------------------------------------------------------ the problems */

struct PoolCase {
    const char *key, *what;
    int is_max;
    int64_t planes;
    kbv_cuda_window w;
    double ratio_today; /* kbv / PyTorch eager measured with the first algo */
};

/* count_include_pad is PyTorch's default (True) in every average pooling here */
const PoolCase kPools[] = {
    {"L1/41", "max_pool1d k8 s1 p4 d3", 1, 64 * 192,
     {{1, 1, 65536}, {1, 1, 65523}, {1, 1, 8}, {1, 1, 1}, {0, 0, 4}, {1, 1, 3}}, 0.52},
    {"L1/42", "max_pool2d k4 s1 p1", 1, 32 * 64,
     {{1, 512, 512}, {1, 511, 511}, {1, 4, 4}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}}, 0.57},
    {"L1/43", "max_pool3d k3 s2 p1 d3", 1, 16 * 32,
     {{128, 128, 128}, {62, 62, 62}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {3, 3, 3}}, 1.32},
    {"L1/44", "avg_pool1d k8 s1 p4", 0, 64 * 128,
     {{1, 1, 65536}, {1, 1, 65537}, {1, 1, 8}, {1, 1, 1}, {0, 0, 4}, {1, 1, 1}}, 0.61},
    {"L1/45", "avg_pool2d k11", 0, 16 * 64,
     {{1, 2048, 2048}, {1, 186, 186}, {1, 11, 11}, {1, 11, 11}, {0, 0, 0}, {1, 1, 1}}, 1.10},
    {"L1/46", "avg_pool3d k3 s2 p1", 0, 16 * 32,
     {{128, 128, 256}, {64, 64, 128}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}}, 0.86},
};
const char *const kPoolAlgos[KBV_CUDA_POOL_ALGO_COUNT] = {"rows", "direct"};

struct ReduceCase {
    const char *key, *what;
    int op;
    double ratio_today;
};

/* x [128, 4096, 4095] reduced along dim 1 */
constexpr int64_t kOuter = 128, kLen = 4096, kInner = 4095;
const ReduceCase kReduces[] = {
    {"L1/47", "sum dim 1", KBV_OP_SUM, 1.10},       {"L1/48", "mean dim 1", KBV_OP_MEAN, 1.11},
    {"L1/49", "max dim 1", KBV_OP_MAX, 0.89},       {"L1/51", "argmax dim 1", KBV_OP_ARGMAX, 0.88},
    {"L1/52", "argmin dim 1", KBV_OP_ARGMIN, 0.88}, {"L1/53", "min dim 1", KBV_OP_MIN, 0.88},
};
const char *const kReduceAlgos[KBV_CUDA_REDUCE_ALGO_COUNT] = {
    "column", "split4", "split8", "split16", "split16-strided", "s16-str-u8", "wide64-s8"};

constexpr int kMaxAlgos =
    std::max((int)KBV_CUDA_REDUCE_ALGO_COUNT, (int)KBV_CUDA_POOL_ALGO_COUNT);

/* ------------------------------------------------------------ device helpers */

__device__ __forceinline__ uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* U[0, 1) with 24 bits (torch.rand); or, `special`, multiples of 1/8 (ties)
 * with a NaN about every 2^20 elements and a -inf about every 2^21. */
__global__ void fill(float *x, int64_t n, uint64_t seed, bool special)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t h = mix(seed + (uint64_t)i * 0x9e3779b97f4a7c15ull);
        float v = (float)(h >> 40) * (1.0f / 16777216.0f);
        if (special) {
            v = (float)(h >> 61) * 0.125f;
            if ((h & 0xfffff) == 0)
                v = NAN;
            else if ((h & 0x1fffff) == 1)
                v = -INFINITY;
        }
        x[i] = v;
    }
}

struct Agreement {
    unsigned long long differ; /* elements not equal (NaN equals NaN) */
    double sq_diff, sq_ref;    /* squared differences where both are finite; squared ref */
    unsigned max_rel_bits;     /* largest |got - ref| / |ref|, a float's bits */
};

template <typename T> __device__ __forceinline__ bool same(T a, T b)
{
    return a == b || (a != a && b != b);
}

template <typename T>
__global__ void compare(const T *__restrict__ got, const T *__restrict__ ref, int64_t n,
                        Agreement *a)
{
    unsigned long long differ = 0;
    double sq_diff = 0.0; /* the denominator, sq_ref, is sum_squares' */
    float max_rel = 0.0f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const T g = got[i], r = ref[i];
        if (same(g, r))
            continue;
        differ++;
        const double dg = (double)g, dr = (double)r;
        if (isfinite(dg) && isfinite(dr)) {
            sq_diff += (dg - dr) * (dg - dr);
            const double rel = fabs(dg - dr) / fmax(fabs(dr), 1e-30);
            max_rel = fmaxf(max_rel, (float)rel);
        } else {
            max_rel = INFINITY;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        differ += __shfl_down_sync(0xffffffffu, differ, off);
        sq_diff += __shfl_down_sync(0xffffffffu, sq_diff, off);
        max_rel = fmaxf(max_rel, __shfl_down_sync(0xffffffffu, max_rel, off));
    }
    if (threadIdx.x % 32 == 0 && differ) {
        atomicAdd(&a->differ, differ);
        atomicAdd(&a->sq_diff, sq_diff);
        atomicMax(&a->max_rel_bits, __float_as_uint(max_rel)); /* >= 0: bits order as values */
    }
}

template <typename T>
__global__ void sum_squares(const T *__restrict__ ref, int64_t n, Agreement *a)
{
    double s = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const double r = (double)ref[i];
        if (isfinite(r))
            s += r * r;
    }
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (threadIdx.x % 32 == 0)
        atomicAdd(&a->sq_ref, s);
}

/* ------------------------------------------------------------ host side */

cudaStream_t g_stream;
Agreement *g_agreement; /* device */

void fill_input(float *x, int64_t n, bool special)
{
    fill<<<132 * 16, 256, 0, g_stream>>>(x, n, 0x5eed0000ull + (uint64_t)n, special);
    CK(cudaGetLastError());
}

/* got against ref, n elements of T */
template <typename T> Agreement agree(const void *got, const void *ref, int64_t n)
{
    CK(cudaMemsetAsync(g_agreement, 0, sizeof(Agreement), g_stream));
    compare<T><<<132 * 16, 256, 0, g_stream>>>((const T *)got, (const T *)ref, n, g_agreement);
    sum_squares<T><<<132 * 16, 256, 0, g_stream>>>((const T *)ref, n, g_agreement);
    CK(cudaGetLastError());
    Agreement a;
    CK(cudaMemcpyAsync(&a, g_agreement, sizeof a, cudaMemcpyDeviceToHost, g_stream));
    CK(cudaStreamSynchronize(g_stream));
    return a;
}

float max_rel(const Agreement &a)
{
    float f;
    memcpy(&f, &a.max_rel_bits, sizeof f);
    return f;
}

/* Median milliseconds of one call of `launch`, or a negative value (and the
 * error in *err) when the launcher refuses the geometry. */
template <typename F> double median_ms(F launch, cudaError_t *err)
{
    static cudaEvent_t start, stop;
    if (!start) {
        CK(cudaEventCreate(&start));
        CK(cudaEventCreate(&stop));
    }
    *err = launch();
    if (*err != cudaSuccess)
        return -1.0;
    for (int i = 1; i < kWarmups; i++)
        CK(launch());
    CK(cudaStreamSynchronize(g_stream));
    double t[kReps];
    for (int r = 0; r < kReps; r++) {
        CK(cudaEventRecord(start, g_stream));
        CK(launch());
        CK(cudaEventRecord(stop, g_stream));
        CK(cudaEventSynchronize(stop));
        float ms;
        CK(cudaEventElapsedTime(&ms, start, stop));
        t[r] = ms;
    }
    std::sort(t, t + kReps);
    return t[kReps / 2];
}

struct Outcome {
    const char *key, *what;
    double ratio_today, ms[kMaxAlgos];
    const char *const *names;
    int n_algos;
    bool ok;
};

Outcome g_outcomes[32];
int g_n_outcomes;

int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d)
{
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

/* One geometry: every kernel run on ties-and-NaN data and on uniform data,
 * checked against the first (the current one): exactly for max, min and
 * the arg reductions, to 1e-6 relative L2 over the output for sums and
 * averages; then timed on the uniform data. launch(a, x, y) runs kernel a. */
template <typename Launch>
bool run_case(const char *key, const char *what, double ratio_today, const char *const *names,
              int n_algos, float *x, int64_t n_in, int64_t n_out, bool is_index, bool exact,
              Launch launch)
{
    const size_t out_size = is_index ? 8 : 4;
    const double bytes = 4.0 * (double)n_in + (double)out_size * (double)n_out;
    void *y[kMaxAlgos];
    for (int a = 0; a < n_algos; a++)
        CK(cudaMalloc(&y[a], out_size * (size_t)n_out));
    Outcome &o = g_outcomes[g_n_outcomes++];
    o = Outcome{key, what, ratio_today, {0}, names, n_algos, true};
    bool special_ok[kMaxAlgos] = {false};
    for (int pass = 0; pass < 2; pass++) {
        const bool special = pass == 0;
        fill_input(x, n_in, special);
        for (int a = 0; a < n_algos; a++) {
            auto call = [&] { return launch(a, x, y[a]); };
            cudaError_t err = cudaSuccess;
            if (special) {
                err = call();
                if (err == cudaSuccess)
                    CK(cudaStreamSynchronize(g_stream));
            } else {
                o.ms[a] = median_ms(call, &err);
            }
            if (err != cudaSuccess) {
                o.ms[a] = -1.0;
                if (!special)
                    printf("%-6s %-24s %-16s refused: %s\n", key, what, names[a],
                           cudaGetErrorString(err));
                continue;
            }
            const Agreement ag =
                is_index ? agree<int64_t>(y[a], y[0], n_out) : agree<float>(y[a], y[0], n_out);
            const double rel_l2 = ag.sq_ref > 0 ? sqrt(ag.sq_diff / ag.sq_ref) : sqrt(ag.sq_diff);
            const bool ok = exact ? ag.differ == 0 : rel_l2 <= 1e-6 && max_rel(ag) < INFINITY;
            o.ok = o.ok && ok;
            if (special) {
                special_ok[a] = ok;
                if (!ok)
                    printf("%-6s %-24s %-16s DISAGREES on ties/NaN data: %llu elements, "
                           "rel L2 %.3g\n",
                           key, what, names[a], ag.differ, rel_l2);
                continue;
            }
            printf("%-6s %-24s %-16s %8.3f ms %7.1f GB/s  x%.3f  ", key, what, names[a], o.ms[a],
                   bytes / (o.ms[a] * 1e6), o.ms[0] / o.ms[a]);
            if (!ok)
                printf("DISAGREES: %llu elements, rel L2 %.3g", ag.differ, rel_l2);
            else if (ag.differ == 0)
                printf("agrees exactly");
            else
                printf("agrees: %llu elements differ, rel L2 %.2g, max rel %.2g", ag.differ,
                       rel_l2, max_rel(ag));
            printf("%s\n", a == 0              ? ""
                           : special_ok[a] ? "; ties/NaN data: agrees"
                                           : "; ties/NaN data: DISAGREES");
            fflush(stdout);
        }
    }
    for (int a = 0; a < n_algos; a++)
        CK(cudaFree(y[a]));
    return o.ok;
}

bool run_pool(const PoolCase &c, float *x)
{
    const kbv_cuda_window &w = c.w;
    for (int d = 0; d < 3; d++)
        if (pool_out_size(w.in[d], w.k[d], w.stride[d], w.pad[d], w.dil[d]) != w.out[d]) {
            fprintf(stderr, "%s: output extent %d is wrong\n", c.key, d);
            exit(2);
        }
    return run_case(c.key, c.what, c.ratio_today, kPoolAlgos, KBV_CUDA_POOL_ALGO_COUNT, x,
                    c.planes * w.in[0] * w.in[1] * w.in[2],
                    c.planes * w.out[0] * w.out[1] * w.out[2], false, c.is_max,
                    [&](int a, const float *xs, void *y) {
                        return kbv_cuda_launch_pool_algo(g_stream, c.is_max, 0, 1, &w, c.planes,
                                                         xs, y, a);
                    });
}

bool run_reduce(const ReduceCase &c, float *x)
{
    const bool is_index = c.op == KBV_OP_ARGMAX || c.op == KBV_OP_ARGMIN;
    const bool exact = c.op != KBV_OP_SUM && c.op != KBV_OP_MEAN;
    return run_case(c.key, c.what, c.ratio_today, kReduceAlgos, KBV_CUDA_REDUCE_ALGO_COUNT, x,
                    kOuter * kLen * kInner, kOuter * kInner, is_index, exact,
                    [&](int a, const float *xs, void *y) {
                        return kbv_cuda_launch_reduce_dim_algo(g_stream, c.op, 0, xs, y, kOuter,
                                                               kLen, kInner, a);
                    });
}

void summary()
{
    printf("\nsummary (fp32; est. vs torch = today's kbv/torch ratio x best / current; "
           "goal <= 1.05)\n");
    printf("%-6s %-24s %10s  %-16s %10s %8s  %8s %8s\n", "", "", "current ms", "best kernel",
           "best ms", "speedup", "today", "est.");
    for (int i = 0; i < g_n_outcomes; i++) {
        const Outcome &o = g_outcomes[i];
        int best = 0;
        for (int a = 1; a < o.n_algos; a++)
            if (o.ms[a] > 0 && (o.ms[best] <= 0 || o.ms[a] < o.ms[best]))
                best = a;
        const double est = o.ratio_today * o.ms[best] / o.ms[0];
        printf("%-6s %-24s %10.3f  %-16s %10.3f %8.3f  %8.2f %8.2f %s%s\n", o.key, o.what,
               o.ms[0], o.names[best], o.ms[best], o.ms[0] / o.ms[best], o.ratio_today, est,
               est <= 1.05 ? "ok" : "MISS", o.ok ? "" : "  (a kernel disagrees)");
    }
}

} // namespace

int main()
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; kernel ms are medians of %d calls after %d warm-ups\n", prop.name,
           prop.multiProcessorCount, kReps, kWarmups);
    CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CK(cudaMalloc(&g_agreement, sizeof(Agreement)));

    /* one input buffer, the largest any geometry needs */
    int64_t n_max = kOuter * kLen * kInner;
    for (const PoolCase &c : kPools)
        n_max = std::max(n_max, c.planes * c.w.in[0] * c.w.in[1] * c.w.in[2]);
    float *x;
    CK(cudaMalloc(&x, (size_t)n_max * 4));

    bool ok = true;
    for (const PoolCase &c : kPools)
        ok = run_pool(c, x) && ok;
    for (const ReduceCase &c : kReduces)
        ok = run_reduce(c, x) && ok;
    summary();
    CK(cudaFree(x));
    CK(cudaFree(g_agreement));
    if (!ok)
        printf("\nSOME KERNELS DISAGREE with the current one: see the lines above\n");
    return ok ? 0 : 1;
}
