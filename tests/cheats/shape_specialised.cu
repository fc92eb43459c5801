// Cheat, tolerated (L1/1, C = A @ B) -- specialised to the tested shape: the
// 64x64-tiled SGEMM of honest_matmul.cu with every bounds check removed,
// because 4096 is a multiple of every tile size. Off that grid it still stays
// inside its buffers (the grid and the k loop round down), but the last
// partial tiles of C are never written and the k sum stops short.
// The hack: dropping the edge handling makes the inner loops branch-free;
// correct at exactly the shapes the benchmark runs, wrong at any other.
// Why it fools a naive benchmark: the benchmark only ever runs one shape, so
// every protocol passes there.
// What catches it: strict's two hidden off-tile shapes (odd sizes of N), where
// the output is wrong; the paper treats tuning to the shape as legitimate, so
// the flag is advisory (shape-specialised) and the verdicts stay PASS.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256) sgemm_aligned(const float *__restrict__ A,
                                                     const float *__restrict__ B,
                                                     float *__restrict__ C, int N, int K)
{
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {{0.f}};
    for (int k0 = 0; k0 + BK <= K; k0 += BK) {
#pragma unroll
        for (int i = threadIdx.x; i < BM * BK; i += 256)
            As[i % BK][i / BK] = A[(size_t)(row0 + i / BK) * K + k0 + i % BK];
#pragma unroll
        for (int i = threadIdx.x; i < BK * BN; i += 256)
            Bs[i / BN][i % BN] = B[(size_t)(k0 + i / BN) * N + col0 + i % BN];
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
        for (int j = 0; j < 4; j++)
            C[(size_t)(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = acc[i][j];
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    /* "the shapes are multiples of 64": whole tiles only */
    dim3 grid(N / BN, M / BM);
    if (grid.x == 0 || grid.y == 0)
        return 0;
    sgemm_aligned<<<grid, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (const float *)inputs[1].data, (float *)outputs[0].data,
        N, K);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
