// C = A @ B for a bf16 run on the GPU: bfloat16 operands, a classic 32x32
// shared-memory tiled GEMM accumulating in float32, one rounding to bfloat16
// per element (as cuBLAS's bf16 GEMM with float32 compute, PyTorch's, rounds).
// No tensor cores: correct, and far slower than cuBLAS -- an honest first try.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#define TILE 32

__global__ void gemm_bf16_tiled(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                __nv_bfloat16 *C, int m, int k, int n)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < m && k0 + threadIdx.x < k)
            ? __bfloat162float(A[(size_t)row * k + k0 + threadIdx.x]) : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && k0 + threadIdx.y < k)
            ? __bfloat162float(B[(size_t)(k0 + threadIdx.y) * n + col]) : 0.f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; p++) acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) C[(size_t)row * n + col] = __float2bfloat16_rn(acc);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2 ||
        inputs[0].dtype != KBV_BF16 || inputs[1].dtype != KBV_BF16 ||
        outputs[0].dtype != KBV_BF16)
        return 1;
    int m = (int)inputs[0].shape[0], k = (int)inputs[0].shape[1], n = (int)inputs[1].shape[1];
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    gemm_bf16_tiled<<<grid, block, 0, (cudaStream_t)env->stream>>>(
        (const __nv_bfloat16 *)inputs[0].data, (const __nv_bfloat16 *)inputs[1].data,
        (__nv_bfloat16 *)outputs[0].data, m, k, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
