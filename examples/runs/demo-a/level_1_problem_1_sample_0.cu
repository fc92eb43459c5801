// C = A @ B for square matrices: a classic 32x32 shared-memory tiled SGEMM.
// Correct in plain FP32, and slower than cuBLAS: an honest first attempt.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define TILE 32

__global__ void sgemm_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < n && k0 + threadIdx.x < n) ? A[(size_t)row * n + k0 + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && k0 + threadIdx.y < n) ? B[(size_t)(k0 + threadIdx.y) * n + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2) return 1;
    int n = (int)inputs[0].shape[0];
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (const float *)inputs[1].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
