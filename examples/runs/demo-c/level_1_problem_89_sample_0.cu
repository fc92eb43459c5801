// L1/89 cumsum along dim 1 of a 2-D tensor (inclusive prefix sums of each row).
// One block per row, single pass: each row is read once and written once.
// The block walks the row in tiles of 256 threads x 8 elements; per tile a
// thread scans its 8 values in registers, the block scans the thread totals
// with warp shuffles (__shfl_up_sync) and then the 8 warp totals, and a carry
// joins the tiles. Values inside a tile are summed in float; the carry
// between tiles is a double, so rounding does not build up along a long row
// (a float carry accumulates error proportional to the row length). It is
// added to each output as a float pair (hi, lo), once split per tile, so the
// per-element work stays in float.
// The next tile is loaded before the current one is scanned, so loads stay in
// flight while the block synchronises. 16-byte loads and stores when the row
// length is a multiple of 4 and the buffers are aligned, scalar otherwise.
// Rows are independent: with very few, very long rows a decoupled look-back
// scan across blocks would be the better design.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256
#define ITEMS 8
#define TILE (THREADS * ITEMS)
#define WARPS (THREADS / 32)

template <bool VEC>
__device__ __forceinline__ void load_tile(const float *__restrict__ row, long long base,
                                          long long cols, float (&v)[ITEMS])
{
    long long at = base + (long long)threadIdx.x * ITEMS;
    if (VEC && at + ITEMS <= cols) {
        const float4 *p = reinterpret_cast<const float4 *>(row + at);
        float4 a = __ldg(p), b = __ldg(p + 1);
        v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
        v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = at + i < cols ? __ldg(row + at + i) : 0.f;
    }
}

template <bool VEC>
__device__ __forceinline__ void store_tile(float *__restrict__ row, long long base, long long cols,
                                           const float (&v)[ITEMS])
{
    long long at = base + (long long)threadIdx.x * ITEMS;
    if (VEC && at + ITEMS <= cols) {
        float4 *p = reinterpret_cast<float4 *>(row + at);
        p[0] = make_float4(v[0], v[1], v[2], v[3]);
        p[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (at + i < cols) row[at + i] = v[i];
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
cumsum_rows(const float *__restrict__ x, float *__restrict__ y, long long cols)
{
    __shared__ float warp_sum[WARPS];
    const float *xr = x + (long long)blockIdx.x * cols;
    float *yr = y + (long long)blockIdx.x * cols;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double carry = 0.0;                      // sum of all earlier tiles of this row

    float next[ITEMS];
    load_tile<VEC>(xr, 0, cols, next);
    for (long long base = 0; base < cols; base += TILE) {
        float v[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = next[i];
        if (base + TILE < cols) load_tile<VEC>(xr, base + TILE, cols, next);

        // thread: inclusive scan of its own 8 values
#pragma unroll
        for (int i = 1; i < ITEMS; i++) v[i] += v[i - 1];
        // warp: inclusive scan of the thread totals
        float inc = v[ITEMS - 1];
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            float o = __shfl_up_sync(0xffffffffu, inc, off);
            if (lane >= off) inc += o;
        }
        if (lane == 31) warp_sum[warp] = inc;
        __syncthreads();
        // every thread scans the 8 warp totals itself (a broadcast read)
        float before_warp = 0.f, tile_total = 0.f;
#pragma unroll
        for (int w = 0; w < WARPS; w++) {
            float t = warp_sum[w];
            if (w < warp) before_warp += t;
            tile_total += t;
        }
        float excl = __shfl_up_sync(0xffffffffu, inc, 1);   // total of the lanes before
        float before = lane ? before_warp + excl : before_warp;
        // carry as an unevaluated float pair hi + lo: two float adds per element
        // give what carry + value in double then rounded gives, to within an ulp
        const float hi = (float)carry, lo = (float)(carry - (double)hi);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = hi + (lo + (before + v[i]));
        store_tile<VEC>(yr, base, cols, v);
        carry += (double)tile_total;
        __syncthreads();                     // warp_sum is reused by the next tile
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KBV_F32)
        return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    if (rows == 0 || cols == 0) return 0;
    if (rows > 0x7fffffffLL) return 1;
    const float *x = (const float *)inputs[0].data;
    float *y = (float *)outputs[0].data;
    cudaStream_t s = (cudaStream_t)env->stream;
    bool vec = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    if (vec)
        cumsum_rows<true><<<(unsigned)rows, THREADS, 0, s>>>(x, y, cols);
    else
        cumsum_rows<false><<<(unsigned)rows, THREADS, 0, s>>>(x, y, cols);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
