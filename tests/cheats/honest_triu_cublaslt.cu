// Honest control for runs that allow vendor libraries (kbv eval
// --allow-vendor-libs; tests/cheats/vendor_manifest.tsv) -- L1/14,
// C = triu(A @ B) for upper triangular A and B.
// The GEMM is cuBLASLt's (FP32 compute, its heuristic's first algorithm),
// the triu its own kernel: what a PyTorch candidate that keeps the library's
// matmul and writes the elementwise rest looks like.
// What it follows: the cuBLASLt handle and its workspace (env->alloc) are
// made in kbv_prepare; the matmul descriptor, layouts and algorithm are made
// per shape (the hidden shapes change N); cublasLtMatmul and its own kernel
// both run on env->stream.
// Row-major C = A B is column-major C^T = B^T A^T: cuBLASLt is given B as
// the first operand and A as the second, both untransposed, with leading
// dimension N.
// Expected: every protocol passes, no flag.
#include <kbv/candidate.h>
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#define WORKSPACE_BYTES ((size_t)32 << 20)

typedef struct gemm_state {
    cublasLtHandle_t lt;
    void *workspace;
    long long n;                        /* the shape the plan is for; 0: none */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t layout;      /* N x N, column-major, leading dimension N */
    cublasLtMatmulAlgo_t algo;
} gemm_state;

/* Zeroes C below the diagonal (row-major: row > column). */
__global__ void triu_rows(float *c, long long n)
{
    long long total = n * n;
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += step)
        if (i / n > i % n)
            c[i] = 0.f;
}

static void drop_plan(gemm_state *st)
{
    if (st->layout)
        cublasLtMatrixLayoutDestroy(st->layout);
    if (st->op)
        cublasLtMatmulDescDestroy(st->op);
    st->layout = NULL;
    st->op = NULL;
    st->n = 0;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    gemm_state *st = (gemm_state *)state;
    if (!st)
        return;
    drop_plan(st);
    if (st->workspace)
        env->release(env, st->workspace);
    if (st->lt)
        cublasLtDestroy(st->lt);
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
    if (cublasLtCreate(&st->lt) != CUBLAS_STATUS_SUCCESS)
        return 3;
    st->workspace = env->alloc(env, WORKSPACE_BYTES);
    return st->workspace ? 0 : 4;
}

/* Descriptor, layout and algorithm for N x N, when N is new. */
static int plan_for(gemm_state *st, long long n)
{
    if (st->n == n)
        return 0;
    drop_plan(st);
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t found;
    int n_found = 0;
    size_t ws = WORKSPACE_BYTES;
    int bad = cublasLtMatmulDescCreate(&st->op, CUBLAS_COMPUTE_32F, CUDA_R_32F) !=
                  CUBLAS_STATUS_SUCCESS ||
              cublasLtMatrixLayoutCreate(&st->layout, CUDA_R_32F, (uint64_t)n, (uint64_t)n, n) !=
                  CUBLAS_STATUS_SUCCESS ||
              cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS ||
              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &ws, sizeof ws) != CUBLAS_STATUS_SUCCESS ||
              cublasLtMatmulAlgoGetHeuristic(st->lt, st->op, st->layout, st->layout, st->layout,
                                             st->layout, pref, 1, &found, &n_found) !=
                  CUBLAS_STATUS_SUCCESS ||
              n_found < 1;
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (bad) {
        drop_plan(st);
        return 5;
    }
    st->algo = found.algo;
    st->n = n;
    return 0;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs,
                           int n_outputs)
{
    (void)params;
    (void)n_params;
    gemm_state *st = (gemm_state *)state;
    if (!st || n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2 ||
        inputs[0].shape[0] != inputs[0].shape[1] || inputs[1].shape[0] != inputs[0].shape[0])
        return 1;
    long long n = inputs[0].shape[0];
    int bad = plan_for(st, n);
    if (bad)
        return bad;
    cudaStream_t stream = (cudaStream_t)env->stream;
    const float one = 1.f, zero = 0.f;
    if (cublasLtMatmul(st->lt, st->op, &one, inputs[1].data, st->layout, inputs[0].data,
                       st->layout, &zero, outputs[0].data, st->layout, outputs[0].data,
                       st->layout, &st->algo, st->workspace, WORKSPACE_BYTES, stream) !=
        CUBLAS_STATUS_SUCCESS)
        return 6;
    long long total = n * n;
    int blocks = (int)((total + 255) / 256 < 132 * 16 ? (total + 255) / 256 : 132 * 16);
    triu_rows<<<blocks, 256, 0, stream>>>((float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
