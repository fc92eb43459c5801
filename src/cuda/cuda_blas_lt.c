/* The product with a bias epilogue through cuBLASLt, called as PyTorch's
 * at::cuda::blas::gemm_and_bias calls it for torch.addmm(bias, x, w.t())
 * (ATen/native/cuda/Blas.cpp addmm_out_cuda_impl takes this path for a
 * contiguous 1-D bias and result, float or double, both weight dims > 1):
 *
 *   column-major C^T (N x M) = op_T(W^T) (N x K) op_N(X^T) (K x M): A is the
 *   weight's memory (ld K) transposed, B the input's (ld K), C the result
 *   (ld N); the epilogue adds bias[row] to each of C^T's rows, beta is 0;
 *   compute type CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32 where TF32
 *   is allowed (the tf32 mode), CUBLAS_COMPUTE_64F for double; the four
 *   pointers' alignments (largest power of two up to 256 dividing each) and
 *   the workspace size as preferences; the heuristic's first algorithm.
 *
 * The workspace is the cuBLAS handle's (32 MiB, counted), as PyTorch's
 * cuBLASLt shares its cuBLAS workspace by default, of which 1 MiB is offered
 * to cuBLASLt as PyTorch offers it (cuda_blas.h). */
#include <string.h>

#include "cuda/cuda_blas.h"
#include "cuda/cuda_check.h"

static kbv_status lt_ready(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    KBV_TRY(kbv_cuda_blas_ready(be)); /* the workspace */
    if (cu->blaslt)
        return KBV_OK;
    cublasLtHandle_t h = NULL;
    KBV_CUBLAS_TRY(cublasLtCreate(&h));
    cu->blaslt = h;
    return KBV_OK;
}

static uint32_t alignment_of(const void *p)
{
    uint32_t a = 256;
    while (a > 1 && ((uintptr_t)p % a) != 0)
        a /= 2;
    return a;
}

/* The descriptors of one call; destroyed together. */
typedef struct lt_call {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulPreference_t pref;
} lt_call;

static void lt_call_destroy(lt_call *l)
{
    if (l->pref)
        cublasLtMatmulPreferenceDestroy(l->pref);
    if (l->c)
        cublasLtMatrixLayoutDestroy(l->c);
    if (l->b)
        cublasLtMatrixLayoutDestroy(l->b);
    if (l->a)
        cublasLtMatrixLayoutDestroy(l->a);
    if (l->op)
        cublasLtMatmulDescDestroy(l->op);
}

#define LT_SET(fn, obj, attr, value)                                                      \
    do {                                                                                  \
        __typeof__(value) kbv_lt_v_ = (value);                                            \
        KBV_CUBLAS_TRY_GOTO(fn(obj, attr, &kbv_lt_v_, sizeof kbv_lt_v_), st, done);       \
    } while (0)

kbv_status kbv_cuda_gemm_bias(kbv_backend *be, const kbv_gemm_bias *g)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    lt_call l = {0};
    if (g->m <= 0 || g->n <= 0 || g->k <= 0)
        return kbv_fail(KBV_ERR_INVALID, "linear: an empty product (%lld x %lld x %lld)",
                        (long long)g->m, (long long)g->n, (long long)g->k);
    KBV_TRY(lt_ready(be));
    const cudaDataType_t type = g->is_f64 ? CUDA_R_64F : CUDA_R_32F;
    const cublasComputeType_t compute = g->is_f64 ? CUBLAS_COMPUTE_64F
                                        : be->mode == KBV_MODE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                    : CUBLAS_COMPUTE_32F;
    /* cuBLAS's m, n, k and leading dims: C^T is N x M */
    const uint64_t m = (uint64_t)g->n, n = (uint64_t)g->m, k = (uint64_t)g->k;
    KBV_CUBLAS_TRY_GOTO(cublasLtMatmulDescCreate(&l.op, compute, type), st, done);
    LT_SET(cublasLtMatmulDescSetAttribute, l.op, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    LT_SET(cublasLtMatmulDescSetAttribute, l.op, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    LT_SET(cublasLtMatmulDescSetAttribute, l.op, CUBLASLT_MATMUL_DESC_EPILOGUE,
           CUBLASLT_EPILOGUE_BIAS);
    LT_SET(cublasLtMatmulDescSetAttribute, l.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, g->bias);
    /* A (transposed): stored k x m; B: k x n; C: m x n */
    KBV_CUBLAS_TRY_GOTO(cublasLtMatrixLayoutCreate(&l.a, type, k, m, g->ldw), st, done);
    KBV_CUBLAS_TRY_GOTO(cublasLtMatrixLayoutCreate(&l.b, type, k, n, g->ldx), st, done);
    KBV_CUBLAS_TRY_GOTO(cublasLtMatrixLayoutCreate(&l.c, type, m, n, (int64_t)m), st, done);
    KBV_CUBLAS_TRY_GOTO(cublasLtMatmulPreferenceCreate(&l.pref), st, done);
    LT_SET(cublasLtMatmulPreferenceSetAttribute, l.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
           KBV_CUBLASLT_WORKSPACE_BYTES);
    LT_SET(cublasLtMatmulPreferenceSetAttribute, l.pref,
           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(g->w));
    LT_SET(cublasLtMatmulPreferenceSetAttribute, l.pref,
           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(g->x));
    LT_SET(cublasLtMatmulPreferenceSetAttribute, l.pref,
           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_of(g->c));
    LT_SET(cublasLtMatmulPreferenceSetAttribute, l.pref,
           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(g->bias));

    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;
    memset(&heuristic, 0, sizeof heuristic);
    KBV_CUBLAS_TRY_GOTO(cublasLtMatmulAlgoGetHeuristic(cu->blaslt, l.op, l.a, l.b, l.c, l.c,
                                                       l.pref, 1, &heuristic, &found),
                        st, done);
    if (found == 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED,
                      "linear: cuBLASLt has no algorithm for %lld x %lld x %lld with a bias",
                      (long long)g->m, (long long)g->n, (long long)g->k);
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = g->is_f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = g->is_f64 ? (const void *)&zero_d : (const void *)&zero_f;
    KBV_CUBLAS_TRY_GOTO(cublasLtMatmul(cu->blaslt, l.op, alpha, g->w, l.a, g->x, l.b, beta, g->c,
                                       l.c, g->c, l.c, &heuristic.algo, cu->blas_workspace,
                                       KBV_CUBLASLT_WORKSPACE_BYTES, cu->stream),
                        st, done);
done:
    lt_call_destroy(&l);
    return st;
}
