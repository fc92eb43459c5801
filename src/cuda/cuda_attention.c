/* scaled_dot_product_attention as a batched GEMM, a row softmax and a
 * second batched GEMM through cuBLAS -- PyTorch's math path; PyTorch's
 * fused kernels (flash attention) do not take this head dim of 1024, and
 * its memory-efficient kernel is the one to match next.
 *
 * The batch goes through in chunks whose scores take at most 256 MiB, so
 * the baseline's peak memory stays below PyTorch's fused kernel's (L1/97:
 * the scores of the whole batch took 1.5 GiB and the peak 1.08x PyTorch's).
 *
 * float16 operands (a candidate's dtype) multiply on fp16 tensor cores with
 * fp32 accumulation, the probabilities are rounded to float16 for the
 * second product as PyTorch's half softmax writes them, and the result is
 * rounded to float16 values. float16 problems whose operands arrive widened
 * to float32 (the baselines' storage) use TF32 tensor cores: a float16
 * value is exact in TF32, so the products match the half ones. float64
 * runs use DGEMM and take float64 operands (the oracle converts). bfloat16
 * operands (the bf16 mode) go the way float16 ones do: bf16 tensor cores
 * with float32 accumulation into float32 scores, a float32 softmax whose
 * probabilities are rounded to bf16 for the second product, and its result
 * written as bf16 -- the numerics of PyTorch's memory-efficient kernel. The
 * scores are scaled inside the softmax. */
#include <math.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_ops.h"
#include "graph/ops_table.h"

#define SDPA_CHUNK_SCORE_BYTES ((size_t)256 << 20)

static kbv_status cublas_ok(cublasStatus_t cst, const char *what)
{
    if (cst != CUBLAS_STATUS_SUCCESS)
        return KBV_CUBLAS_FAIL(cst, what);
    return KBV_OK;
}

/* The shapes of one call: nb items of the batch, scores L x S. */
typedef struct sdpa_dims {
    int64_t nb, L, E, S, Ev;
    bool half_in, half_out, f64;
    bool bf16;                       /* bfloat16 operands and output */
} sdpa_dims;

/* softmax(Q K^T * scale) V for d.nb items of the batch, scores (and, for
 * float16 operands, the float16 probabilities) in the given buffers. */
static kbv_status sdpa_chunk(kbv_backend *be, const sdpa_dims *d, const void *q, const void *k,
                             const void *v, void *out, void *scores, void *probs)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const double scale = 1.0 / sqrt((double)d->E);
    const int m = (int)d->S, n = (int)d->L, kk = (int)d->E, ev = (int)d->Ev, s = (int)d->S;
    const long long sq = d->L * d->E, sk = d->S * d->E, sv = d->S * d->Ev, ss = d->L * d->S,
                    so = d->L * d->Ev;
    if (d->f64) {
        const double one = 1.0, zero = 0.0;
        /* scores^T (S x L, column-major) = K (S x E) Q^T: row-major scores L x S */
        KBV_TRY(cublas_ok(cublasDgemmStridedBatched(cu->blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, kk,
                                                    &one, k, kk, sk, q, kk, sq, &zero, scores, s,
                                                    ss, (int)d->nb),
                          "cublasDgemmStridedBatched(Q K^T)"));
        KBV_CUDA_TRY(kbv_cuda_launch_scaled_softmax(cu->stream, 1, scores, d->nb * d->L, d->S,
                                                    scale, NULL));
        return cublas_ok(cublasDgemmStridedBatched(cu->blas, CUBLAS_OP_N, CUBLAS_OP_N, ev, n, s,
                                                   &one, v, ev, sv, scores, s, ss, &zero, out,
                                                   ev, so, (int)d->nb),
                         "cublasDgemmStridedBatched(P V)");
    }
    const float one = 1.0f, zero = 0.0f;
    if (d->bf16) {
        KBV_TRY(cublas_ok(cublasGemmStridedBatchedEx(cu->blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, kk,
                                                     &one, k, CUDA_R_16BF, kk, sk, q,
                                                     CUDA_R_16BF, kk, sq, &zero, scores,
                                                     CUDA_R_32F, s, ss, (int)d->nb,
                                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                          "cublasGemmStridedBatchedEx(Q K^T, bf16)"));
        KBV_CUDA_TRY(kbv_cuda_launch_scaled_softmax_bf16(cu->stream, scores, d->nb * d->L, d->S,
                                                         scale, probs));
        return cublas_ok(cublasGemmStridedBatchedEx(cu->blas, CUBLAS_OP_N, CUBLAS_OP_N, ev, n, s,
                                                    &one, v, CUDA_R_16BF, ev, sv, probs,
                                                    CUDA_R_16BF, s, ss, &zero, out, CUDA_R_16BF,
                                                    ev, so, (int)d->nb, CUBLAS_COMPUTE_32F,
                                                    CUBLAS_GEMM_DEFAULT),
                         "cublasGemmStridedBatchedEx(P V, bf16)");
    }
    const cudaDataType_t in_t = d->half_in ? CUDA_R_16F : CUDA_R_32F;
    const cublasComputeType_t compute =
        d->half_in ? CUBLAS_COMPUTE_32F
        : (d->half_out || be->mode == KBV_MODE_TF32) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                     : CUBLAS_COMPUTE_32F;
    KBV_TRY(cublas_ok(cublasGemmStridedBatchedEx(cu->blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, kk,
                                                 &one, k, in_t, kk, sk, q, in_t, kk, sq, &zero,
                                                 scores, CUDA_R_32F, s, ss, (int)d->nb, compute,
                                                 CUBLAS_GEMM_DEFAULT),
                      "cublasGemmStridedBatchedEx(Q K^T)"));
    KBV_CUDA_TRY(kbv_cuda_launch_scaled_softmax(cu->stream, 0, scores, d->nb * d->L, d->S, scale,
                                                probs));
    KBV_TRY(cublas_ok(cublasGemmStridedBatchedEx(cu->blas, CUBLAS_OP_N, CUBLAS_OP_N, ev, n, s,
                                                 &one, v, in_t, ev, sv,
                                                 d->half_in ? probs : scores, in_t, s, ss, &zero,
                                                 out, CUDA_R_32F, ev, so, (int)d->nb, compute,
                                                 CUBLAS_GEMM_DEFAULT),
                      "cublasGemmStridedBatchedEx(P V)"));
    if (d->half_out)
        KBV_CUDA_TRY(kbv_cuda_launch_round_half(cu->stream, 0, out, d->nb * d->L * d->Ev));
    return KBV_OK;
}

kbv_status kbv_cuda_op_sdpa(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_status st = KBV_OK;
    void *scores = NULL, *probs = NULL;
    const kbv_tensor *q = &args[0], *k = &args[1], *v = &args[2];
    const int nd = q->ndim;
    for (int a = 0; a < 3; a++)
        if (!kbv_tensor_is_contiguous(&args[a]) || args[a].ndim != nd || args[a].dtype != q->dtype)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: operands must "
                            "be contiguous, of one dtype and rank");
    if (nd < 2)
        return kbv_fail(KBV_ERR_INVALID, "scaled_dot_product_attention: %d-dim operands", nd);
    const int64_t L = q->shape[nd - 2], E = q->shape[nd - 1], S = k->shape[nd - 2],
                  Ev = v->shape[nd - 1];
    const int64_t batch = L > 0 && E > 0 ? kbv_tensor_numel(q) / (L * E) : 0;
    if (k->shape[nd - 1] != E || v->shape[nd - 2] != S || E == 0 || S == 0)
        return kbv_fail(KBV_ERR_INVALID, "scaled_dot_product_attention: shapes do not match");
    if (L > INT32_MAX || S > INT32_MAX || E > INT32_MAX || Ev > INT32_MAX || batch > INT32_MAX)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: sizes beyond int");
    const bool half_in = q->dtype == KBV_F16, f64 = be->float_dtype == KBV_F64;
    const bool bf16 = q->dtype == KBV_BF16;
    const bool half_out = node->def && node->def->i[0] && !f64 && !bf16;
    if (bf16 && be->float_dtype != KBV_BF16)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: bfloat16 operands "
                        "on %s", be->name);
    if (!half_in && q->dtype != be->float_dtype)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: %s operands on %s",
                        kbv_dtype_name(q->dtype), be->name);
    if (half_in && f64)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: a float64 run "
                        "takes float64 copies of float16 operands");
    KBV_TRY(kbv_cuda_check_out(out, batch * L * Ev, be->float_dtype,
                               "scaled_dot_product_attention"));
    if (batch == 0 || L == 0 || Ev == 0)
        return KBV_OK;
    KBV_TRY(kbv_cuda_blas_ready(be));
    /* scores in float64 or float32; the output in the backend's float dtype */
    const size_t esize = f64 ? 8 : 4, in_size = kbv_dtype_size(q->dtype);
    const size_t out_size = kbv_dtype_size(be->float_dtype);
    int64_t chunk = (int64_t)(SDPA_CHUNK_SCORE_BYTES / ((size_t)(L * S) * esize));
    chunk = chunk < 1 ? 1 : chunk > batch ? batch : chunk;
    KBV_TRY_GOTO(be->alloc(be, (size_t)(chunk * L * S) * esize, &scores), st, done);
    if (half_in || bf16)
        KBV_TRY_GOTO(be->alloc(be, (size_t)(chunk * L * S) * 2, &probs), st, done);
    for (int64_t b0 = 0; b0 < batch; b0 += chunk) {
        const sdpa_dims d = {batch - b0 < chunk ? batch - b0 : chunk, L, E, S, Ev, half_in,
                             half_out, f64, bf16};
        KBV_TRY_GOTO(sdpa_chunk(be, &d, (const char *)q->data + b0 * L * E * in_size,
                                (const char *)k->data + b0 * S * E * in_size,
                                (const char *)v->data + b0 * S * Ev * in_size,
                                (char *)out->data + b0 * L * Ev * out_size, scores, probs),
                     st, done);
    }
done:
    be->release(be, probs);
    be->release(be, scores);
    return st;
}
