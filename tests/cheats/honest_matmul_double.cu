// Honest control (L1/1, C = A @ B) with double accumulation: honest_matmul.cu's
// 64x64-tiled kernel (256 threads, each a 4x4 block of C from shared-memory
// tiles, bounds checks on every load and store) with each product and sum in
// double -- float inputs are exact in double -- and C rounded once. Far
// slower than cuBLAS, and more accurate than any float32 or TF32 GEMM: it
// must pass every protocol with no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256) dgemm_acc_64x64(const float *__restrict__ A,
                                                   const float *__restrict__ B,
                                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BK][BM + 4];   /* A tile, transposed: As[k][m] */
    __shared__ float Bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    double acc[4][4] = {{0.0}};
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
            double a[4], b[4];
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
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[(size_t)r * N + c] = (float)acc[i][j];
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
    dgemm_acc_64x64<<<grid, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (const float *)inputs[1].data, (float *)outputs[0].data,
        M, N, K);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
