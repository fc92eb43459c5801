// L1/95 cross_entropy(predictions [R, C], targets int64 [R]) -> a scalar: the
// mean over rows of logsumexp(row) - row[target].
// One warp per row, each row read once: every lane keeps an online
// (max, sum of exp(x - max)) over its float4s (16-byte loads), rescaling the
// sum only when a float4 raises the max, then the 32 lanes' pairs are merged
// with shuffles. Lane 0 adds log(sum) + max - row[target] into a double.
// Rows with target -100 (PyTorch's default ignore_index) are skipped and
// excluded from the mean; a target outside [0, C) gives NaN (PyTorch raises).
// The warps' sums become one (loss, count) partial per block; one block adds
// the partials in a fixed order: deterministic, no atomics. expf is the
// accurate one. The partials buffer is made in kbv_prepare.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 1024

// (m, s) <- the pair for the union of (m, s) and (m2, s2)
__device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    if (mx == -INFINITY) { s = s + s2; return; }
    s = (m == -INFINITY ? 0.f : s * expf(m - mx)) + (m2 == -INFINITY ? 0.f : s2 * expf(m2 - mx));
    m = mx;
}

__device__ __forceinline__ void add4(float &m, float &s, float a, float b, float c, float d)
{
    float mx = fmaxf(fmaxf(a, b), fmaxf(c, d));
    if (mx > m) { s *= expf(m - mx); m = mx; }            // expf(-inf) = 0 at the start
    if (m != -INFINITY || mx != mx)                       // all -inf so far adds nothing
        s += (expf(a - m) + expf(b - m)) + (expf(c - m) + expf(d - m));
}

__device__ __forceinline__ void add1(float &m, float &s, float a)
{
    if (a > m) { s *= expf(m - a); m = a; }
    if (m != -INFINITY || a != a) s += expf(a - m);
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
ce_partial(const float *__restrict__ x, const int64_t *__restrict__ target, long long R, long long C,
           double2 *__restrict__ partial)
{
    __shared__ double warp_loss[WARPS], warp_count[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double loss = 0.0, count = 0.0;
    for (long long r = (long long)blockIdx.x * WARPS + warp; r < R; r += (long long)gridDim.x * WARPS) {
        long long t = target[r];                          // the same address for all lanes
        if (t == -100) continue;                          // warp-uniform
        const float *row = x + r * C;
        float m = -INFINITY, s = 0.f;
        if (VEC) {
            const float4 *row4 = reinterpret_cast<const float4 *>(row);
#pragma unroll 4
            for (long long c = lane; c < C / 4; c += 32) {
                float4 v = __ldg(row4 + c);
                add4(m, s, v.x, v.y, v.z, v.w);
            }
        } else {
            for (long long c = lane; c < C; c += 32) {
                add1(m, s, __ldg(row + c));
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
            merge(m, s, m2, s2);
        }
        if (lane == 0) {
            loss += (t < 0 || t >= C) ? (double)NAN
                                      : (log((double)s) + (double)m) - (double)__ldg(row + t);
            count += 1.0;
        }
    }
    if (lane == 0) { warp_loss[warp] = loss; warp_count[warp] = count; }
    __syncthreads();
    if (threadIdx.x == 0) {
        double l = 0.0, c = 0.0;
        for (int w = 0; w < WARPS; w++) { l += warp_loss[w]; c += warp_count[w]; }
        partial[blockIdx.x] = make_double2(l, c);
    }
}

__global__ void __launch_bounds__(MAX_BLOCKS)
ce_final(const double2 *__restrict__ partial, int parts, float *__restrict__ y)
{
    __shared__ double wl[MAX_BLOCKS / 32], wc[MAX_BLOCKS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double2 v = threadIdx.x < parts ? partial[threadIdx.x] : make_double2(0.0, 0.0);
    double l = v.x, c = v.y;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        l += __shfl_xor_sync(0xffffffffu, l, off);
        c += __shfl_xor_sync(0xffffffffu, c, off);
    }
    if (lane == 0) { wl[warp] = l; wc[warp] = c; }
    __syncthreads();
    if (warp == 0) {
        l = wl[lane];
        c = wc[lane];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            l += __shfl_xor_sync(0xffffffffu, l, off);
            c += __shfl_xor_sync(0xffffffffu, c, off);
        }
        if (lane == 0) *y = (float)(l / c);               // no counted row: 0/0 = NaN, as PyTorch
    }
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params, void **state)
{
    (void)params; (void)n_params;
    *state = env->alloc(env, MAX_BLOCKS * sizeof(double2));
    return *state ? 0 : 3;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state) { env->release(env, state); }

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)params; (void)n_params;
    const kbv_tensor *xt = &inputs[0], *tt = &inputs[1];
    if (n_inputs != 2 || n_outputs != 1 || !state || xt->ndim != 2 || tt->ndim != 1 ||
        xt->dtype != KBV_F32 || tt->dtype != KBV_I64 || tt->shape[0] != xt->shape[0])
        return 1;
    long long R = xt->shape[0], C = xt->shape[1];
    const float *x = (const float *)xt->data;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (R + WARPS - 1) / WARPS;
    if (blocks > (long long)sms * 8) blocks = (long long)sms * 8;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    double2 *partial = (double2 *)state;
    if (C % 4 == 0 && ((uintptr_t)x & 15) == 0)
        ce_partial<true><<<(unsigned)blocks, THREADS, 0, s>>>(x, (const int64_t *)tt->data, R, C, partial);
    else
        ce_partial<false><<<(unsigned)blocks, THREADS, 0, s>>>(x, (const int64_t *)tt->data, R, C, partial);
    ce_final<<<1, MAX_BLOCKS, 0, s>>>(partial, (int)blocks, (float *)outputs[0].data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
