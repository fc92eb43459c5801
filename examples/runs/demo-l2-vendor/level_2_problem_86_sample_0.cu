// L2/86 Matmul_Divide_GELU in a run that allows vendor libraries (kbv eval
// --allow-vendor-libs): y = gelu((x @ W^T + b) / 10), nn.Linear(8192, 8192),
// the exact (erf) GELU. The GEMM is cuBLAS's SGEMM (default math: FP32, as
// PyTorch's default matmul), the rest one kernel of its own: bias, the true
// division by 10 and the GELU in one pass over the GEMM's output, in place
// (PyTorch's eager module makes three passes: the bias in the GEMM's epilogue,
// then the division, then the GELU, each writing a tensor).
// What it follows: the handle and a 4 MiB workspace (env->alloc) are made in
// kbv_prepare; each call puts cuBLAS on env->stream and hands it the
// workspace again (cublasSetStream resets it); shapes come from the tensors.
// Row-major y = x W^T is column-major y^T = W x^T: cuBLAS gets W transposed
// (leading dimension K) and x untransposed (leading dimension K).
// Expected (examples/runs/demo-l2-vendor/EXPECTED.tsv): every protocol passes.
#include <kbv/candidate.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE_BYTES ((size_t)4 << 20)

typedef struct gemm_state {
    cublasHandle_t blas;
    void *workspace;
} gemm_state;

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

/* y[m][n] = gelu((y[m][n] + b[n]) / 10), exact GELU: x/2 (1 + erf(x / sqrt 2)). */
__global__ void bias_divide_gelu(float *__restrict__ y, const float *__restrict__ b, long long n,
                                 long long total)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += step) {
        const float v = (y[i] + b[i % n]) / 10.f;
        y[i] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    }
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    gemm_state *st = (gemm_state *)state;
    if (!st)
        return;
    if (st->workspace)
        env->release(env, st->workspace);
    if (st->blas)
        cublasDestroy(st->blas);
    free(st);
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                           void **state)
{
    (void)params;
    (void)n_params;
    gemm_state *st = (gemm_state *)calloc(1, sizeof *st);
    if (!st)
        return 2;
    *state = st;
    if (cublasCreate(&st->blas) != CUBLAS_STATUS_SUCCESS)
        return 3;
    st->workspace = env->alloc(env, WORKSPACE_BYTES);
    return st->workspace ? 0 : 4;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs,
                           int n_outputs)
{
    gemm_state *st = (gemm_state *)state;
    const kbv_tensor *w = param(params, n_params, "linear.weight");
    const kbv_tensor *b = param(params, n_params, "linear.bias");
    if (!st || n_inputs != 1 || n_outputs != 1 || !w || !b || inputs[0].dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || inputs[0].ndim != 2 || w->ndim != 2 ||
        w->shape[1] != inputs[0].shape[1] || outputs[0].shape[1] != w->shape[0])
        return 1;
    const int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)w->shape[0];
    cudaStream_t stream = (cudaStream_t)env->stream;
    if (cublasSetStream(st->blas, stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(st->blas, st->workspace, WORKSPACE_BYTES) != CUBLAS_STATUS_SUCCESS)
        return 5;
    const float one = 1.f, zero = 0.f;
    if (cublasSgemm(st->blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, (const float *)w->data, K,
                    (const float *)inputs[0].data, K, &zero, (float *)outputs[0].data,
                    N) != CUBLAS_STATUS_SUCCESS)
        return 6;
    const long long total = (long long)M * N;
    const long long want = (total + 255) / 256;
    const int blocks = (int)(want < 132 * 16 ? (want > 0 ? want : 1) : 132 * 16);
    bias_divide_gelu<<<blocks, 256, 0, stream>>>((float *)outputs[0].data, (const float *)b->data,
                                                 N, total);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
