/* The CUDA scans (cumsum, cumprod) and the layout ops around them (flip, a
 * zeros slice, cat, the [:-1] view), through the kernels of cuda_scan.cu on
 * contiguous operands (cat of more than two: strided copies). */
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"
#include "exec/stack_as_cat.h"

kbv_status kbv_cuda_op_scan(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    int dim = 0;
    KBV_TRY(kbv_cuda_resolve_dim(node, &args[0], &dim));
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, kbv_tensor_numel(&args[0]),
                                      args[0].dtype, &in));
    int64_t outer, len, inner;
    kbv_cuda_split_at(&in.x, dim, &outer, &len, &inner);
    kbv_status st = kbv_cuda_launched(kbv_cuda_launch_scan(cu->stream,
                                                           node->op == KBV_OP_CUMPROD, in.kind,
                                                           in.x.data, len, out->data, outer, len,
                                                           inner),
                                      node);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_flip(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    int dim = 0;
    KBV_TRY(kbv_cuda_resolve_dim(node, &args[0], &dim));
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_any(be, node, &args[0], out, kbv_tensor_numel(&args[0]),
                                     args[0].dtype, &in));
    int64_t outer, len, inner;
    kbv_cuda_split_at(&in.x, dim, &outer, &len, &inner);
    kbv_status st = kbv_cuda_launched(kbv_cuda_launch_flip(cu->stream, kbv_dtype_size(in.x.dtype),
                                                           in.x.data, out->data, outer, len,
                                                           inner),
                                      node);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_zeros_slice(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out)
{
    (void)args;
    kbv_cuda *cu = kbv_cuda_of(be);
    const int64_t n = kbv_tensor_numel(out);
    KBV_TRY(kbv_cuda_check_out(out, n, out->dtype, kbv_cuda_op_name(node->op)));
    if (n == 0)
        return KBV_OK;
    return kbv_cuda_launched(cudaMemsetAsync(out->data, 0, (size_t)n * kbv_dtype_size(out->dtype),
                                             cu->stream),
                             node);
}

/* cat of n > 2 operands: up to KBV_CUDA_CAT_BATCH of them in one launch. An
 * operand that is not contiguous is copied first and ends its batch, so that
 * only one such copy is alive at a time. */
static kbv_status cat_many(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out, int dim)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    int64_t outer, total, inner;
    kbv_cuda_split_at(out, dim, &outer, &total, &inner);
    int64_t at = 0;
    for (int first = 0; first < node->n_args;) {
        kbv_cuda_operand held[KBV_CUDA_CAT_BATCH];
        kbv_cuda_cat_batch batch = {.n = 0};
        kbv_status st = KBV_OK;
        for (int k = first; k < node->n_args && batch.n < KBV_CUDA_CAT_BATCH; k++) {
            if (args[k].dtype != out->dtype) {
                st = kbv_fail(KBV_ERR_UNSUPPORTED, "cat: operand %d of another dtype than the "
                              "output", k);
                break;
            }
            kbv_cuda_operand *a = &held[batch.n];
            st = kbv_cuda_operand_get_any(be, node, &args[k], out, kbv_tensor_numel(out),
                                          out->dtype, a);
            if (st != KBV_OK)
                break;
            batch.n++;
            int64_t o, len, in;
            kbv_cuda_split_at(&a->x, dim, &o, &len, &in);
            if (o != outer || in != inner || at + len > total) {
                st = kbv_fail(KBV_ERR_INVALID, "cat: operand %d does not fit the output", k);
                break;
            }
            batch.x[batch.n - 1] = a->x.data;
            batch.len[batch.n - 1] = len;
            batch.at[batch.n - 1] = at;
            at += len;
            if (a->copy)   /* one contiguous copy alive at a time, as before: the peak stays */
                break;
        }
        if (st == KBV_OK && total > 0)
            st = kbv_cuda_launched(kbv_cuda_launch_cat_batch(cu->stream,
                                                             kbv_dtype_size(out->dtype), &batch,
                                                             out->data, outer, total, inner),
                                   node);
        for (int k = batch.n - 1; k >= 0; k--)
            kbv_cuda_operand_release(be, &held[k]);
        KBV_TRY(st);
        first += batch.n;
    }
    return KBV_OK;
}

kbv_status kbv_cuda_op_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    int dim = 0;
    KBV_TRY(kbv_cuda_resolve_dim(node, &args[0], &dim));
    if (node->n_args > 2)
        return cat_many(be, node, args, out, dim);
    if (args[0].dtype != out->dtype || args[1].dtype != out->dtype)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "cat: operands of another dtype than the output");
    const int64_t n = kbv_tensor_numel(&args[0]) + kbv_tensor_numel(&args[1]);
    kbv_cuda_operand a, b = {.copy = NULL};
    KBV_TRY(kbv_cuda_operand_get_any(be, node, &args[0], out, n, out->dtype, &a));
    kbv_status st = kbv_cuda_operand_get_any(be, node, &args[1], out, n, out->dtype, &b);
    if (st == KBV_OK) {
        int64_t outer, la, inner;
        kbv_cuda_split_at(&a.x, dim, &outer, &la, &inner);
        st = kbv_cuda_launched(kbv_cuda_launch_cat(cu->stream, kbv_dtype_size(out->dtype),
                                                   a.x.data, la, b.x.data, b.x.shape[dim],
                                                   out->data, outer, inner),
                               node);
    } else {
        kbv_relay_at(__FILE__, __LINE__, st);
    }
    kbv_cuda_operand_release(be, &b);
    kbv_cuda_operand_release(be, &a);
    return st;
}

/* torch.stack: the cat of the operands, each viewed with a size-1 dim at
 * the stack's dim, along that dim. */
kbv_status kbv_cuda_op_stack(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    int n = node->n_args, dim = 0;
    if (n < 1 || out->ndim < 1 || out->ndim != args[0].ndim + 1)
        return kbv_fail(KBV_ERR_INVALID, "stack: %d operands of %d dims for a %d-dim result", n,
                        n > 0 ? args[0].ndim : 0, out->ndim);
    KBV_TRY(kbv_cuda_resolve_dim(node, out, &dim));
    if (n == 1)
        return kbv_cuda_launched(cudaMemcpyAsync(out->data, args[0].data,
                                                 kbv_tensor_bytes(out), cudaMemcpyDeviceToDevice,
                                                 kbv_cuda_of(be)->stream),
                                 node);
    return kbv_stack_as_cat(be, node, args, out, dim, kbv_cuda_op_cat);
}

/* a[:-1]: the same memory and strides, one index fewer along dim 0. */
kbv_status kbv_cuda_op_drop_last(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    (void)be;
    (void)node;
    const kbv_tensor *a = &args[0];
    if (a->ndim < 1 || out->ndim != a->ndim || a->dtype != out->dtype)
        return kbv_fail(KBV_ERR_INVALID, "[:-1]: a %d-dim operand for a %d-dim output", a->ndim,
                        out->ndim);
    out->data = a->data;
    memcpy(out->stride, a->stride, sizeof out->stride);
    return KBV_OK;
}
