// Cross-entropy loss for a bf16 run on the GPU: the logits are bfloat16, the
// class indices stay int64 (integers are not cast), and the mean loss is a
// 0-d bfloat16. One warp per row: each lane keeps an online (max, sum of
// exp(x - max)) in float over its elements, the lanes' pairs are merged with
// shuffles, and lane 0 adds log(sum) + max - row[target] into a double.
// Blocks write (loss, count) partials; one block adds them in a fixed order
// and rounds the mean to bfloat16 once. Target -100 (PyTorch's ignore_index)
// is skipped; a target outside [0, C) gives NaN (PyTorch raises).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 1024

__device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    if (mx == -INFINITY) { s = s + s2; return; }
    s = (m == -INFINITY ? 0.f : s * expf(m - mx)) + (m2 == -INFINITY ? 0.f : s2 * expf(m2 - mx));
    m = mx;
}

__device__ __forceinline__ void add1(float &m, float &s, float a)
{
    if (a > m) { s *= expf(m - a); m = a; }
    if (m != -INFINITY || a != a) s += expf(a - m);
}

__global__ void __launch_bounds__(THREADS)
ce_partial(const __nv_bfloat16 *__restrict__ x, const int64_t *__restrict__ target, long long R,
           long long C, double2 *__restrict__ partial)
{
    __shared__ double warp_loss[WARPS], warp_count[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double loss = 0.0, count = 0.0;
    for (long long r = (long long)blockIdx.x * WARPS + warp; r < R; r += (long long)gridDim.x * WARPS) {
        long long t = target[r];
        if (t == -100) continue;                          // warp-uniform
        const __nv_bfloat16 *row = x + r * C;
        float m = -INFINITY, s = 0.f;
        for (long long c = lane; c < C; c += 32) add1(m, s, __bfloat162float(row[c]));
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
            merge(m, s, m2, s2);
        }
        if (lane == 0) {
            loss += (t < 0 || t >= C) ? (double)NAN
                                      : (log((double)s) + (double)m) - (double)__bfloat162float(row[t]);
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

__global__ void ce_final(const double2 *__restrict__ partial, int parts, __nv_bfloat16 *__restrict__ y)
{
    if (threadIdx.x != 0) return;
    double l = 0.0, c = 0.0;
    for (int i = 0; i < parts; i++) { l += partial[i].x; c += partial[i].y; }
    *y = __float2bfloat16_rn((float)(l / c));             // no counted row: 0/0 = NaN, as PyTorch
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
        xt->dtype != KBV_BF16 || tt->dtype != KBV_I64 || outputs[0].dtype != KBV_BF16 ||
        tt->shape[0] != xt->shape[0])
        return 1;
    long long R = xt->shape[0], C = xt->shape[1];
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (R + WARPS - 1) / WARPS;
    if (blocks > (long long)sms * 8) blocks = (long long)sms * 8;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    double2 *partial = (double2 *)state;
    ce_partial<<<(unsigned)blocks, THREADS, 0, s>>>((const __nv_bfloat16 *)xt->data,
                                                    (const int64_t *)tt->data, R, C, partial);
    ce_final<<<1, 32, 0, s>>>(partial, (int)blocks, (__nv_bfloat16 *)outputs[0].data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
