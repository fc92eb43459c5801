/* The CUDA ops of the normalisation, reduction, scan and loss family: each
 * checks its operands, makes strided views contiguous (as PyTorch's kernels
 * read them), takes its scratch from the backend's allocator (counted, as
 * PyTorch's reductions' buffers are) and enqueues its kernels
 * (cuda_norm_launch.h) on the backend's stream. */
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_ops_norm.h"
#include "graph/ops_table.h"

static const char *op_name(const kbv_node *node)
{
    return (unsigned)node->op < KBV_OP_COUNT && kbv_op_table[node->op].name
               ? kbv_op_table[node->op].name
               : "op";
}

static kbv_status launched(cudaError_t err, const kbv_node *node)
{
    if (err != cudaSuccess)
        return kbv_fail(err == cudaErrorMemoryAllocation ? KBV_ERR_NOMEM : KBV_ERR_CUDA,
                        "%s kernel launch: %s (%s)", op_name(node), cudaGetErrorString(err),
                        cudaGetErrorName(err));
    return KBV_OK;
}

static kbv_status resolve_dim(const kbv_node *node, const kbv_tensor *t, int *dim)
{
    int64_t d = node->def ? node->def->i[0] : 0;
    if (t->ndim == 0 || d < -t->ndim || d >= t->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %d dims",
                        op_name(node), (long long)d, t->ndim);
    *dim = (int)(d < 0 ? d + t->ndim : d);
    return KBV_OK;
}

/* [outer, len, inner] around dim. */
static void split_at(const kbv_tensor *t, int dim, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    for (int d = 0; d < dim; d++)
        *outer *= t->shape[d];
    for (int d = dim + 1; d < t->ndim; d++)
        *inner *= t->shape[d];
    *len = t->shape[dim];
}

/* Scratch of `bytes` from the backend (NULL for 0), released by the caller. */
static kbv_status scratch_get(kbv_backend *be, size_t bytes, void **p)
{
    *p = NULL;
    return bytes ? be->alloc(be, bytes, p) : KBV_OK;
}

kbv_status kbv_cuda_op_norm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    void *copy_scratch = NULL, *scratch = NULL;
    int ft;
    const bool affine = node->op != KBV_OP_INSTANCE_NORM;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &ft));
    if (!node->def || args[0].ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: needs eps and an input of 2 or more dims",
                        op_name(node));
    const int64_t n_all = kbv_cuda_numel(&args[0]);
    KBV_TRY(kbv_cuda_check_out(out, n_all, args[0].dtype, op_name(node)));
    if (affine)
        for (int k = 1; k < 3; k++) {
            int f;
            KBV_TRY(kbv_cuda_float_kind(be, &args[k], &f));
            if (!kbv_cuda_is_contiguous(&args[k]))
                return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: weight/bias must be contiguous",
                                op_name(node));
        }
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    int64_t n = x.shape[0], channels = x.shape[1], spatial = 1, groups = 1;
    for (int d = 2; d < x.ndim; d++)
        spatial *= x.shape[d];
    int kind = KBV_CUDA_NORM_INSTANCE;
    switch (node->op) {
    case KBV_OP_BATCH_NORM: kind = KBV_CUDA_NORM_BATCH; break;
    case KBV_OP_GROUP_NORM:
        kind = KBV_CUDA_NORM_GROUP;
        groups = node->def->i[0];
        if (groups <= 0 || channels % groups != 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "group_norm: %lld channels in %lld groups",
                          (long long)channels, (long long)groups);
        break;
    case KBV_OP_LAYER_NORM: {
        kind = KBV_CUDA_NORM_LAYER;
        int64_t size = kbv_cuda_numel(&args[1]);
        if (size == 0 || n_all % size != 0 || kbv_cuda_numel(&args[2]) != size)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "layer_norm: weight of %lld elements",
                          (long long)size);
        n = n_all / size;
        channels = 1;
        spatial = size;
        break;
    }
    default: break;
    }
    if (affine && kind != KBV_CUDA_NORM_LAYER &&
        (kbv_cuda_numel(&args[1]) != channels || kbv_cuda_numel(&args[2]) != channels))
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s: weight and bias need %lld elements",
                      op_name(node), (long long)channels);
    KBV_TRY_GOTO(scratch_get(be, kbv_cuda_norm_scratch_bytes(kind, n, channels, spatial, groups),
                             &scratch),
                 st, done);
    st = launched(kbv_cuda_launch_norm(cu->stream, kind, ft, x.data, out->data,
                                       affine ? args[1].data : NULL,
                                       affine ? args[2].data : NULL, n, channels, spatial,
                                       groups, node->def->f[0], scratch),
                  node);
done:
    be->release(be, scratch);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_reduce(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    void *copy_scratch = NULL;
    int ft, dim = 0;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &ft));
    KBV_TRY(resolve_dim(node, &args[0], &dim));
    int64_t outer, len, inner;
    split_at(&args[0], dim, &outer, &len, &inner);
    const bool is_index = node->op == KBV_OP_ARGMAX || node->op == KBV_OP_ARGMIN;
    KBV_TRY(kbv_cuda_check_out(out, outer * inner, is_index ? KBV_I64 : args[0].dtype,
                               op_name(node)));
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    kbv_status st = launched(kbv_cuda_launch_reduce_dim(cu->stream, node->op, ft, x.data,
                                                        out->data, outer, len, inner),
                             node);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                  kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    void *copy_scratch = NULL, *scratch = NULL;
    int ft;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &ft));
    KBV_TRY(kbv_cuda_check_out(out, 1, args[0].dtype, op_name(node)));
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    const int64_t n = kbv_cuda_numel(&x);
    KBV_TRY_GOTO(scratch_get(be, kbv_cuda_reduce_all_scratch_bytes(n), &scratch), st, done);
    st = launched(kbv_cuda_launch_reduce_all(cu->stream, node->op == KBV_OP_NORM_FRO, ft,
                                             x.data, out->data, n, scratch),
                  node);
done:
    be->release(be, scratch);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    void *copy_scratch = NULL;
    int ft;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &ft));
    const int64_t n = kbv_cuda_numel(&args[0]);
    KBV_TRY(kbv_cuda_check_out(out, n, args[0].dtype, op_name(node)));
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    kbv_status st = launched(kbv_cuda_launch_pointwise(cu->stream, node->op, ft,
                                                       node->def ? node->def->f[0] : 0.0,
                                                       x.data, out->data, n),
                             node);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0], *m = &args[1];
    int ft;
    KBV_TRY(kbv_cuda_float_kind(be, x, &ft));
    if (m->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "mul_mask: the mask is %s, not bool",
                        kbv_dtype_name(m->dtype));
    const int64_t n = kbv_cuda_numel(out), nm = kbv_cuda_numel(m);
    KBV_TRY(kbv_cuda_check_out(out, n, x->dtype, "mul_mask"));
    /* contiguous x of the output's shape; the mask either the same or one
     * trailing row repeated */
    const bool row_mask = nm > 0 && n % nm == 0 && m->ndim >= 1 && out->ndim >= 1 &&
                          nm == out->shape[out->ndim - 1];
    if (!kbv_cuda_is_contiguous(x) || kbv_cuda_numel(x) != n || !kbv_cuda_is_contiguous(m) ||
        (nm != n && !row_mask))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "mul_mask: supported are a contiguous tensor and a same-shape or "
                        "last-dim mask");
    return launched(kbv_cuda_launch_mul_mask(cu->stream, ft, x->data, m->data, out->data, n,
                                             nm == n ? n : nm),
                    node);
}

kbv_status kbv_cuda_op_scan(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    void *copy_scratch = NULL;
    int ft, dim = 0;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &ft));
    KBV_TRY(resolve_dim(node, &args[0], &dim));
    KBV_TRY(kbv_cuda_check_out(out, kbv_cuda_numel(&args[0]), args[0].dtype, op_name(node)));
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    int64_t outer, len, inner;
    split_at(&x, dim, &outer, &len, &inner);
    kbv_status st = launched(kbv_cuda_launch_scan(cu->stream, node->op == KBV_OP_CUMPROD, ft,
                                                  x.data, len, out->data, outer, len, inner),
                             node);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_flip(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    void *copy_scratch = NULL;
    int dim = 0;
    KBV_TRY(resolve_dim(node, &args[0], &dim));
    KBV_TRY(kbv_cuda_check_out(out, kbv_cuda_numel(&args[0]), args[0].dtype, "flip"));
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, &args[0], &x, &copy_scratch));
    int64_t outer, len, inner;
    split_at(&x, dim, &outer, &len, &inner);
    kbv_status st = launched(kbv_cuda_launch_flip(cu->stream, kbv_dtype_size(x.dtype), x.data,
                                                  out->data, outer, len, inner),
                             node);
    be->release(be, copy_scratch);
    return st;
}

kbv_status kbv_cuda_op_zeros_slice(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out)
{
    (void)args;
    kbv_cuda *cu = kbv_cuda_of(be);
    const int64_t n = kbv_cuda_numel(out);
    KBV_TRY(kbv_cuda_check_out(out, n, out->dtype, op_name(node)));
    if (n == 0)
        return KBV_OK;
    return launched(cudaMemsetAsync(out->data, 0, (size_t)n * kbv_dtype_size(out->dtype),
                                    cu->stream),
                    node);
}

kbv_status kbv_cuda_op_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    void *sa = NULL, *sb = NULL;
    int dim = 0;
    KBV_TRY(resolve_dim(node, &args[0], &dim));
    if (args[0].dtype != out->dtype || args[1].dtype != out->dtype)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "cat: operands of another dtype than the output");
    KBV_TRY(kbv_cuda_check_out(out, kbv_cuda_numel(&args[0]) + kbv_cuda_numel(&args[1]),
                               out->dtype, "cat"));
    kbv_tensor a, b;
    KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[0], &a, &sa), st, done);
    KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[1], &b, &sb), st, done);
    int64_t outer, la, lb, inner;
    split_at(&a, dim, &outer, &la, &inner);
    lb = b.shape[dim];
    st = launched(kbv_cuda_launch_cat(cu->stream, kbv_dtype_size(out->dtype), a.data, la, b.data,
                                      lb, out->data, outer, inner),
                  node);
done:
    be->release(be, sb);
    be->release(be, sa);
    return st;
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

kbv_status kbv_cuda_op_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    void *scratch = NULL;
    int ft;
    const int n_float = node->op == KBV_OP_TRIPLET_MARGIN ? 3
                        : node->op == KBV_OP_CROSS_ENTROPY ? 1
                                                            : 2;
    for (int k = 0; k < n_float; k++) {
        KBV_TRY(kbv_cuda_float_kind(be, &args[k], &ft));
        if (!kbv_cuda_is_contiguous(&args[k]))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous",
                            op_name(node), k);
    }
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes", op_name(node));
    KBV_TRY(kbv_cuda_check_out(out, 1, args[0].dtype, op_name(node)));
    const kbv_tensor *a = &args[0];
    const int64_t n = kbv_cuda_numel(a);
    const int64_t rows = a->ndim >= 1 ? a->shape[0] : 1;
    const double *f = node->def->f;
    for (int k = 1; k < n_float; k++)
        if (kbv_cuda_numel(&args[k]) != n)
            return kbv_fail(KBV_ERR_INVALID, "%s: operands of %lld and %lld elements",
                            op_name(node), (long long)n, (long long)kbv_cuda_numel(&args[k]));
    KBV_TRY(scratch_get(be, kbv_cuda_loss_scratch_bytes(rows, n), &scratch));
    cudaError_t err = cudaSuccess;
    switch (node->op) {
    case KBV_OP_CROSS_ENTROPY:
        if (a->ndim != 2 || args[1].dtype != KBV_I64 || args[1].ndim != 1 ||
            args[1].shape[0] != rows || !kbv_cuda_is_contiguous(&args[1]))
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID,
                          "cross_entropy: [N, C] logits and [N] int64 targets");
        err = kbv_cuda_launch_cross_entropy(cu->stream, ft, a->data, args[1].data, out->data,
                                            rows, a->shape[1], scratch);
        break;
    case KBV_OP_SMOOTH_L1:
        err = kbv_cuda_launch_smooth_l1(cu->stream, ft, a->data, args[1].data, out->data, n,
                                        f[0], scratch);
        break;
    case KBV_OP_KL_DIV:
        err = kbv_cuda_launch_kl_div(cu->stream, ft, a->data, args[1].data, out->data, n,
                                     rows, scratch);
        break;
    case KBV_OP_TRIPLET_MARGIN:
        if (a->ndim != 2 || f[1] != 2.0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED,
                          "triplet_margin_loss: [N, D] operands and p = 2");
        err = kbv_cuda_launch_triplet(cu->stream, ft, a->data, args[1].data, args[2].data,
                                      out->data, rows, a->shape[1], f[0], f[2], scratch);
        break;
    default:
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is not a loss", op_name(node));
    }
    st = launched(err, node);
done:
    be->release(be, scratch);
    return st;
}
