// Softmax over dim 1 for a bf16 run on the GPU: one block per row; the row
// is read as float, its max and sum of exp(x - max) reduced in float, and
// each result rounded to bfloat16 once (PyTorch's bf16 softmax accumulates
// in float too). Three passes over the row; expf is the accurate one.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>

#define THREADS 1024

__device__ float block_reduce(float v, bool is_max, float *sh)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    __syncthreads();                     // sh is free again
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (is_max ? -INFINITY : 0.f);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    return v;                            // every lane of every warp has it
}

__global__ void __launch_bounds__(THREADS)
softmax_rows(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y, long long cols)
{
    __shared__ float sh[32];
    const __nv_bfloat16 *xr = x + blockIdx.x * cols;
    __nv_bfloat16 *yr = y + blockIdx.x * cols;
    float m = -INFINITY;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, __bfloat162float(xr[j]));
    m = block_reduce(m, true, sh);
    float s = 0.f;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) s += expf(__bfloat162float(xr[j]) - m);
    s = block_reduce(s, false, sh);
    const float inv = 1.f / s;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2bfloat16_rn(expf(__bfloat162float(xr[j]) - m) * inv);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 ||
        inputs[0].dtype != KBV_BF16 || outputs[0].dtype != KBV_BF16)
        return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    if (rows == 0 || cols == 0) return 0;
    if (rows > 0x7FFFFFFFLL) return 1;
    softmax_rows<<<(unsigned)rows, THREADS, 0, (cudaStream_t)env->stream>>>(
        (const __nv_bfloat16 *)inputs[0].data, (__nv_bfloat16 *)outputs[0].data, cols);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
