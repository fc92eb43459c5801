/* Matrix products through cuBLAS, issued as PyTorch issues them.
 *
 * Tensors are row-major and cuBLAS is column-major, so C = A B is computed
 * as C^T = B^T A^T: a row-major matrix is its transpose in column-major
 * order, with no copy. A transposed view (stride (1, ld)) is handed over as
 * CUBLAS_OP_T. Products use cublas[SD]gemm and their strided-batched forms
 * with the handle's math mode deciding TF32 -- what torch.mm/bmm call under
 * torch.backends.cuda.matmul.allow_tf32 -- and the _64 entry points when a
 * size exceeds INT_MAX. bfloat16 products are cublasGemmEx (strided-batched)
 * on CUDA_R_16BF operands with CUBLAS_COMPUTE_32F, alpha and beta float,
 * under the default math mode, which allows reduced-precision reductions:
 * PyTorch's at::cuda::blas::gemm<at::BFloat16> with its default
 * allow_bf16_reduced_precision_reduction. */
#include <limits.h>

#include "cuda/cuda_blas.h"
#include "cuda/cuda_check.h"

kbv_status kbv_cuda_blas_ready(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    if (cu->blas)
        return KBV_OK;
    kbv_status st = KBV_OK;
    cublasHandle_t h = NULL;
    void *ws = NULL;
    KBV_CUDA_TRY(cudaSetDevice(cu->device));
    KBV_CUBLAS_TRY(cublasCreate(&h));
    /* the stream first: setting it resets the workspace to cuBLAS's own */
    KBV_CUBLAS_TRY_GOTO(cublasSetStream(h, cu->stream), st, fail);
    cublasMath_t math = be->mode == KBV_MODE_TF32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
    KBV_CUBLAS_TRY_GOTO(cublasSetMathMode(h, math), st, fail);
    KBV_TRY_GOTO(be->alloc(be, KBV_CUBLAS_WORKSPACE_BYTES, &ws), st, fail);
    KBV_CUBLAS_TRY_GOTO(cublasSetWorkspace(h, ws, KBV_CUBLAS_WORKSPACE_BYTES), st, fail);
    cu->blas = h;
    cu->blas_workspace = ws;
    return KBV_OK;
fail:
    if (ws)
        be->release(be, ws);
    cublasDestroy(h);
    return st;
}

/* How cuBLAS sees the transpose of a row-major-indexed matrix X (rows x cols,
 * strides rs, cs): row-major X is X^T column-major with ld = rs (OP_N); a
 * transposed view (rs == 1) is X column-major with ld = cs, so OP_T. */
static bool blas_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs, cublasOperation_t *op,
                      int64_t *ld)
{
    if ((cs == 1 || cols == 1) && (rows == 1 || rs >= (cols > 1 ? cols : 1))) {
        *op = CUBLAS_OP_N;
        *ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
        return true;
    }
    if ((rs == 1 || rows == 1) && (cols == 1 || cs >= (rows > 1 ? rows : 1))) {
        *op = CUBLAS_OP_T;
        *ld = cols == 1 ? (rows > 1 ? rows : 1) : cs;
        return true;
    }
    return false;
}

bool kbv_cuda_gemm_viewable(int64_t rows, int64_t cols, int64_t rs, int64_t cs)
{
    cublasOperation_t op;
    int64_t ld;
    return blas_view(rows, cols, rs, cs, &op, &ld);
}

typedef struct blas_args {
    cublasOperation_t opa, opb;   /* cuBLAS's A is our B^T, its B our A^T */
    int64_t m, n, k;              /* m = N, n = M, k = K */
    int64_t lda, ldb, ldc;
} blas_args;

static bool needs_64(const blas_args *x, int64_t count)
{
    return x->m > INT_MAX || x->n > INT_MAX || x->k > INT_MAX || x->lda > INT_MAX
           || x->ldb > INT_MAX || x->ldc > INT_MAX || count > INT_MAX;
}

/* bfloat16: count products through cublasGemmEx, float32 compute. */
static kbv_status blas_call_bf16(kbv_cuda *cu, const blas_args *x, const void *a,
                                 int64_t stride_a, const void *b, int64_t stride_b, void *c,
                                 int64_t stride_c, int64_t count)
{
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType_t t = CUDA_R_16BF;
    const cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
    const cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT_TENSOR_OP;
    if (needs_64(x, count)) {
        if (count == 1)
            KBV_CUBLAS_TRY(cublasGemmEx_64(cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a, t,
                                           x->lda, b, t, x->ldb, &zero, c, t, x->ldc, ct, algo));
        else
            KBV_CUBLAS_TRY(cublasGemmStridedBatchedEx_64(
                cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a, t, x->lda, stride_a, b, t,
                x->ldb, stride_b, &zero, c, t, x->ldc, stride_c, count, ct, algo));
    } else if (count == 1) {
        KBV_CUBLAS_TRY(cublasGemmEx(cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k,
                                    &one, a, t, (int)x->lda, b, t, (int)x->ldb, &zero, c, t,
                                    (int)x->ldc, ct, algo));
    } else {
        KBV_CUBLAS_TRY(cublasGemmStridedBatchedEx(
            cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k, &one, a, t, (int)x->lda,
            stride_a, b, t, (int)x->ldb, stride_b, &zero, c, t, (int)x->ldc, stride_c,
            (int)count, ct, algo));
    }
    return KBV_OK;
}

/* count products: C_i = A_i B_i in cuBLAS's terms, entries strideX apart. */
static kbv_status blas_call(kbv_cuda *cu, int kind, const blas_args *x, const void *a,
                            int64_t stride_a, const void *b, int64_t stride_b, void *c,
                            int64_t stride_c, int64_t count)
{
    const bool big = needs_64(x, count);
    if (kind == KBV_CUDA_KIND_BF16)
        return blas_call_bf16(cu, x, a, stride_a, b, stride_b, c, stride_c, count);
    if (kind == KBV_CUDA_KIND_F64) {
        const double one = 1.0, zero = 0.0;
        if (count == 1 && big)
            KBV_CUBLAS_TRY(cublasDgemm_64(cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a,
                                          x->lda, b, x->ldb, &zero, c, x->ldc));
        else if (count == 1)
            KBV_CUBLAS_TRY(cublasDgemm(cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k,
                                       &one, a, (int)x->lda, b, (int)x->ldb, &zero, c, (int)x->ldc));
        else if (big)
            KBV_CUBLAS_TRY(cublasDgemmStridedBatched_64(
                cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a, x->lda, stride_a, b, x->ldb,
                stride_b, &zero, c, x->ldc, stride_c, count));
        else
            KBV_CUBLAS_TRY(cublasDgemmStridedBatched(
                cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k, &one, a, (int)x->lda,
                stride_a, b, (int)x->ldb, stride_b, &zero, c, (int)x->ldc, stride_c, (int)count));
    } else {
        const float one = 1.0f, zero = 0.0f;
        if (count == 1 && big)
            KBV_CUBLAS_TRY(cublasSgemm_64(cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a,
                                          x->lda, b, x->ldb, &zero, c, x->ldc));
        else if (count == 1)
            KBV_CUBLAS_TRY(cublasSgemm(cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k,
                                       &one, a, (int)x->lda, b, (int)x->ldb, &zero, c, (int)x->ldc));
        else if (big)
            KBV_CUBLAS_TRY(cublasSgemmStridedBatched_64(
                cu->blas, x->opa, x->opb, x->m, x->n, x->k, &one, a, x->lda, stride_a, b, x->ldb,
                stride_b, &zero, c, x->ldc, stride_c, count));
        else
            KBV_CUBLAS_TRY(cublasSgemmStridedBatched(
                cu->blas, x->opa, x->opb, (int)x->m, (int)x->n, (int)x->k, &one, a, (int)x->lda,
                stride_a, b, (int)x->ldb, stride_b, &zero, c, (int)x->ldc, stride_c, (int)count));
    }
    return KBV_OK;
}

/* The stride s with offset == s * flat batch index, if the operand's batch
 * strides are of that form (always so for a fully broadcast operand). */
static bool linear_batch(const kbv_gemm *g, const int64_t *stride, int64_t *s)
{
    int64_t inner = 1;
    bool have = false;
    *s = 0;
    for (int d = g->nb - 1; d >= 0; d--) {
        if (g->batch[d] == 1)
            continue;
        if (!have) {
            *s = stride[d]; /* innermost dim with entries: inner == 1 here */
            have = true;
        } else if (stride[d] != *s * inner) {
            return false;
        }
        inner *= g->batch[d];
    }
    return true;
}

static const char *at_offset(const void *p, int64_t elems, size_t esize)
{
    return (const char *)p + elems * (int64_t)esize;
}

kbv_status kbv_cuda_gemm(kbv_backend *be, const kbv_gemm *g)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const size_t esize = g->kind == KBV_CUDA_KIND_F64    ? sizeof(double)
                         : g->kind == KBV_CUDA_KIND_BF16 ? 2
                                                         : sizeof(float);
    const int64_t M = g->a.rows, K = g->a.cols, N = g->b.cols;
    if (g->b.rows != K)
        return kbv_fail(KBV_ERR_INVALID, "gemm: inner sizes differ (%lld x %lld @ %lld x %lld)",
                        (long long)M, (long long)K, (long long)g->b.rows, (long long)N);
    if (g->nb < 0 || g->nb > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "gemm: %d batch dims", g->nb);
    int64_t count = 1;
    for (int d = 0; d < g->nb; d++)
        count *= g->batch[d];
    if (M == 0 || N == 0 || count == 0)
        return KBV_OK;
    if (K == 0) { /* an empty sum: zeros, as torch.matmul gives */
        KBV_CUDA_TRY(cudaMemsetAsync(g->c, 0, (size_t)(count * M * N) * esize, cu->stream));
        return KBV_OK;
    }

    blas_args x;
    cublasOperation_t op_a, op_b;
    int64_t ld_a, ld_b;
    if (!blas_view(M, K, g->a.rs, g->a.cs, &op_a, &ld_a)
        || !blas_view(K, N, g->b.rs, g->b.cs, &op_b, &ld_b))
        return kbv_fail(KBV_ERR_INVALID, "gemm: an operand is neither row- nor column-major "
                                         "(make it contiguous first)");
    x.opa = op_b;
    x.lda = ld_b;
    x.opb = op_a;
    x.ldb = ld_a;
    x.m = N;
    x.n = M;
    x.k = K;
    x.ldc = N;
    KBV_TRY(kbv_cuda_blas_ready(be));

    int64_t sa, sb;
    if (linear_batch(g, g->a.batch_stride, &sa) && linear_batch(g, g->b.batch_stride, &sb)) {
        KBV_TRY(blas_call(cu, g->kind, &x, g->b.data, sb, g->a.data, sa, g->c, M * N, count));
        return KBV_OK;
    }

    /* Batch strides that no single stride describes: one strided-batched
     * call per combination of the outer batch dims, over the innermost. */
    int last = g->nb - 1;
    while (last > 0 && g->batch[last] == 1)
        last--;
    const int64_t inner_count = g->batch[last];
    const int64_t outer_count = count / inner_count;
    for (int64_t f = 0; f < outer_count; f++) {
        int64_t rest = f, off_a = 0, off_b = 0, off_c = 0, inner = inner_count;
        for (int d = g->nb - 1; d >= 0; d--) {
            if (d == last)
                continue;
            int64_t i = rest % g->batch[d];
            rest /= g->batch[d];
            off_a += i * g->a.batch_stride[d];
            off_b += i * g->b.batch_stride[d];
            if (d < last) { /* dims after `last` have size 1 and add nothing */
                off_c += i * inner;
                inner *= g->batch[d];
            }
        }
        KBV_TRY(blas_call(cu, g->kind, &x, at_offset(g->b.data, off_b, esize),
                          g->b.batch_stride[last], at_offset(g->a.data, off_a, esize),
                          g->a.batch_stride[last], (char *)g->c + off_c * M * N * (int64_t)esize,
                          M * N, inner_count));
    }
    return KBV_OK;
}
