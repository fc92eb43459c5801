/* The CUDA ops' shared prologue (see cuda_op_args.h). */
#include "cuda/cuda_op_args.h"

#include "graph/ops_table.h"

const char *kbv_cuda_op_name(kbv_op op)
{
    return (unsigned)op < KBV_OP_COUNT && kbv_op_table[op].name ? kbv_op_table[op].name : "op";
}

kbv_status kbv_cuda_launched(cudaError_t err, const kbv_node *node)
{
    if (err != cudaSuccess)
        return kbv_fail(err == cudaErrorMemoryAllocation ? KBV_ERR_NOMEM : KBV_ERR_CUDA,
                        "%s kernel launch: %s (%s)", kbv_cuda_op_name(node->op),
                        cudaGetErrorString(err), cudaGetErrorName(err));
    return KBV_OK;
}

kbv_status kbv_cuda_operand_get(kbv_backend *be, const kbv_node *node, const kbv_tensor *arg,
                                const kbv_tensor *out, int64_t out_numel, kbv_dtype out_dtype,
                                kbv_cuda_operand *op)
{
    op->copy = NULL;
    KBV_TRY(kbv_cuda_float_of(be, arg, &op->is_f64));
    op->kind = op->is_f64 ? KBV_CUDA_KIND_F64 : KBV_CUDA_KIND_F32;
    KBV_TRY(kbv_cuda_check_out(out, out_numel, out_dtype, kbv_cuda_op_name(node->op)));
    KBV_TRY(kbv_cuda_contiguous(be, arg, &op->x, &op->copy));
    return KBV_OK;
}

kbv_status kbv_cuda_operand_get_kind(kbv_backend *be, const kbv_node *node,
                                     const kbv_tensor *arg, const kbv_tensor *out,
                                     int64_t out_numel, kbv_dtype out_dtype,
                                     kbv_cuda_operand *op)
{
    op->copy = NULL;
    KBV_TRY(kbv_cuda_float_kind(be, arg, &op->kind));
    op->is_f64 = op->kind == KBV_CUDA_KIND_F64;
    KBV_TRY(kbv_cuda_check_out(out, out_numel, out_dtype, kbv_cuda_op_name(node->op)));
    KBV_TRY(kbv_cuda_contiguous(be, arg, &op->x, &op->copy));
    return KBV_OK;
}

kbv_status kbv_cuda_operand_get_any(kbv_backend *be, const kbv_node *node, const kbv_tensor *arg,
                                    const kbv_tensor *out, int64_t out_numel,
                                    kbv_dtype out_dtype, kbv_cuda_operand *op)
{
    op->copy = NULL;
    op->is_f64 = arg->dtype == KBV_F64;
    op->kind = op->is_f64 ? KBV_CUDA_KIND_F64 : arg->dtype == KBV_BF16 ? KBV_CUDA_KIND_BF16
                                                                      : KBV_CUDA_KIND_F32;
    KBV_TRY(kbv_cuda_check_out(out, out_numel, out_dtype, kbv_cuda_op_name(node->op)));
    KBV_TRY(kbv_cuda_contiguous(be, arg, &op->x, &op->copy));
    return KBV_OK;
}

void kbv_cuda_operand_release(kbv_backend *be, kbv_cuda_operand *op)
{
    be->release(be, op->copy); /* stream order: safe right after the enqueue */
    op->copy = NULL;
}

kbv_status kbv_cuda_resolve_dim(const kbv_node *node, const kbv_tensor *t, int *dim)
{
    int64_t d = node->def ? node->def->i[0] : 0;
    if (t->ndim == 0 || d < -t->ndim || d >= t->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %d dims",
                        kbv_cuda_op_name(node->op), (long long)d, t->ndim);
    *dim = (int)(d < 0 ? d + t->ndim : d);
    return KBV_OK;
}

void kbv_cuda_split_at(const kbv_tensor *t, int dim, int64_t *outer, int64_t *len,
                       int64_t *inner)
{
    *outer = *inner = 1;
    for (int d = 0; d < dim; d++)
        *outer *= t->shape[d];
    for (int d = dim + 1; d < t->ndim; d++)
        *inner *= t->shape[d];
    *len = t->shape[dim];
}

kbv_status kbv_cuda_scratch(kbv_backend *be, size_t bytes, void **p)
{
    *p = NULL;
    return bytes ? be->alloc(be, bytes, p) : KBV_OK;
}
