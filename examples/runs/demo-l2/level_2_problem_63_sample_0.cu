// L2/63 Gemm_ReLU_Divide: y = relu(x @ W^T + b) / 2, nn.Linear(8192, 8192).
// One kernel: a 64x64-tiled SGEMM whose epilogue adds the bias, applies the
// ReLU and divides by 2 (exact: a power of two) in registers.
// Plain FP32, slower than cuBLAS's GEMM: an honest fused first attempt.
// Expected (examples/runs/demo-l2/EXPECTED.tsv): every protocol passes.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <string.h>

#define WEIGHT "linear.weight"
#define BIAS "linear.bias"

/* relu(v + b) / 2, NaN kept */
__device__ __forceinline__ float epilogue(float v, float b)
{
    v += b;
    return (v < 0.f ? 0.f : v) / 2.f;
}

#define BM 64
#define BN 64
#define BK 16

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

/* y[m][n] = epilogue(sum_k x[m][k] * w[n][k], bias[n]): x row-major [M, K], w the
 * nn.Linear weight [N, K] (both contiguous along K). A block computes a
 * 64 x 64 tile of y, each of its 256 threads a 4 x 4 patch; K is walked in
 * slices of 16 staged in shared memory (zero-padded at the edges, so any
 * M, N, K works). Float accumulation with FMAs, like cuBLAS's SGEMM. */
__global__ void __launch_bounds__(256)
gemm_epilogue(const float *__restrict__ x, const float *__restrict__ w,
              const float *__restrict__ bias, float *__restrict__ y, int M, int N, int K)
{
    __shared__ float xs[BK][BM + 4], ws[BK][BN + 4];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {{0.f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            const int r = i / BK, kk = i % BK, gk = k0 + kk;
            xs[kk][r] = (row0 + r < M && gk < K) ? x[(size_t)(row0 + r) * K + gk] : 0.f;
            ws[kk][r] = (col0 + r < N && gk < K) ? w[(size_t)(col0 + r) * K + gk] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                a[i] = xs[kk][ty * 4 + i];
                b[i] = ws[kk][tx * 4 + i];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int m = row0 + ty * 4 + i;
        if (m >= M)
            continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int n = col0 + tx * 4 + j;
            if (n < N)
                y[(size_t)m * N + n] = epilogue(acc[i][j], bias[n]);
        }
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs,
                           int n_outputs)
{
    (void)state;
    const kbv_tensor *w = param(params, n_params, WEIGHT), *b = param(params, n_params, BIAS);
    if (n_inputs != 1 || n_outputs != 1 || !w || !b || inputs[0].dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || inputs[0].ndim != 2 || w->ndim != 2 ||
        w->shape[1] != inputs[0].shape[1] || outputs[0].shape[1] != w->shape[0])
        return 1;
    const int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)w->shape[0];
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_epilogue<<<grid, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (const float *)w->data, (const float *)b->data,
        (float *)outputs[0].data, M, N, K);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
