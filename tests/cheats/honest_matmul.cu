// Honest control (L1/1, C = A @ B): a 64x64-tiled SGEMM, 256 threads each
// computing a 4x4 block of C from shared-memory tiles of A and B, with FP32
// accumulation and bounds checks on every load and store, so it is right at
// any shape. Slower than cuBLAS, and honest: it must pass every protocol with
// no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256) sgemm_64x64(const float *__restrict__ A,
                                                   const float *__restrict__ B,
                                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BK][BM + 4];   /* A tile, transposed: As[k][m] */
    __shared__ float Bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {{0.f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            int m = i / BK, k = i % BK, gr = row0 + m, gk = k0 + k;
            As[k][m] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            int k = i / BN, n = i % BN, gk = k0 + k, gc = col0 + n;
            Bs[k][n] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[i] = As[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++)
                b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    if (M == 0 || N == 0)
        return 0;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_64x64<<<grid, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (const float *)inputs[1].data, (float *)outputs[0].data,
        M, N, K);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
