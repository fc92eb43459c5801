/* The CUDA reductions: along one dim (sum, mean, max, min, argmax, argmin,
 * 2-norm; F.normalize by that norm), over the whole tensor (mean, Frobenius norm), over several dims
 * (sum, mean, amax with a bitmask of dims) and logsumexp, through the
 * kernels of cuda_reduce.cu and cuda_logsumexp.cu. The operand is made
 * contiguous (as PyTorch's reductions read it). Over several dims, size-1 dims are
 * dropped; a run of adjacent reduced dims is one [outer, len, inner]
 * reduction through the reduction kernels (cuda_reduce.cu), as PyTorch's
 * reduce kernel sees coalesced dims. Reduced dims that are not adjacent
 * (dims 0 and 2 of three) reduce one run at a time, innermost first, into
 * counted scratch: a sum or a max composes exactly that way, a mean as a
 * mean of equal-sized means. */
#include "cuda/cuda_check.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"
#include "graph/ops_rules.h"

kbv_status kbv_cuda_op_reduce(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    int dim = 0;
    KBV_TRY(kbv_cuda_resolve_dim(node, &args[0], &dim));
    int64_t outer, len, inner;
    kbv_cuda_split_at(&args[0], dim, &outer, &len, &inner);
    const bool is_index = node->op == KBV_OP_ARGMAX || node->op == KBV_OP_ARGMIN;
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, outer * inner,
                                      is_index ? KBV_I64 : args[0].dtype, &in));
    kbv_status st = kbv_cuda_launched(kbv_cuda_launch_reduce_dim(cu->stream, node->op, in.kind,
                                                                 in.x.data, out->data, outer, len,
                                                                 inner),
                                      node);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_normalize(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "normalize: no attributes (dim, eps)");
    int dim = 0;
    KBV_TRY(kbv_cuda_resolve_dim(node, &args[0], &dim));
    int64_t outer, len, inner;
    kbv_cuda_split_at(&args[0], dim, &outer, &len, &inner);
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, outer * len * inner,
                                      args[0].dtype, &in));
    /* the norm, as PyTorch's x.norm(2, dim, keepdim=True) allocates it */
    void *norm = NULL;
    kbv_status st = kbv_cuda_scratch(be, (size_t)(outer * inner) * kbv_dtype_size(in.x.dtype),
                                     &norm);
    if (st == KBV_OK)
        st = kbv_cuda_launched(kbv_cuda_launch_reduce_dim(cu->stream, KBV_OP_NORM_DIM, in.kind,
                                                          in.x.data, norm, outer, len, inner),
                               node);
    else
        kbv_relay_at(__FILE__, __LINE__, st);
    if (st == KBV_OK)
        st = kbv_cuda_launched(kbv_cuda_launch_normalize_divide(cu->stream, in.kind, in.x.data,
                                                                norm, out->data, outer, len,
                                                                inner, node->def->f[0]),
                               node);
    be->release(be, norm);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                  kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    void *scratch = NULL;
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, 1, args[0].dtype, &in));
    const int64_t n = kbv_tensor_numel(&in.x);
    kbv_status st = kbv_cuda_scratch(be, kbv_cuda_reduce_all_scratch_bytes(n), &scratch);
    if (st == KBV_OK)
        st = kbv_cuda_launched(kbv_cuda_launch_reduce_all(cu->stream,
                                                          node->op == KBV_OP_NORM_FRO,
                                                          in.kind, in.x.data, out->data, n,
                                                          scratch),
                               node);
    else
        kbv_relay_at(__FILE__, __LINE__, st);
    be->release(be, scratch);
    kbv_cuda_operand_release(be, &in);
    return st;
}

/* The single-dim reduction kind of a multi-dim op. */
static int dim_op_of(kbv_op op)
{
    switch (op) {
    case KBV_OP_SUM_DIMS: return KBV_OP_SUM;
    case KBV_OP_MEAN_DIMS: return KBV_OP_MEAN;
    default: return KBV_OP_MAX; /* amax: a NaN wins, as torch.amax */
    }
}

kbv_status kbv_cuda_op_reduce_dims(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0];
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes", kbv_cuda_op_name(node->op));
    unsigned mask = 0;
    KBV_TRY(kbv_reduce_dims_mask(node->def, a->ndim, &mask));
    /* the dims of size > 1, outermost first, and whether each is reduced */
    int64_t size[KBV_MAX_DIMS];
    bool reduced[KBV_MAX_DIMS];
    int nd = 0;
    int64_t kept = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (!((mask >> d) & 1u))
            kept *= a->shape[d];
        if (a->shape[d] == 1)
            continue;
        size[nd] = a->shape[d];
        reduced[nd++] = (mask >> d) & 1u;
    }
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get(be, node, a, out, kept, a->dtype, &in));
    kbv_status st = KBV_OK;
    void *stage[2] = {NULL, NULL};
    const size_t esize = kbv_dtype_size(a->dtype);
    const void *src = in.x.data;
    int runs = 0;
    for (int d = 0; d < nd; d++)
        runs += reduced[d] && (d == 0 || !reduced[d - 1]);
    if (runs == 0) { /* only size-1 dims reduced: a copy */
        if (kept > 0)
            KBV_CUDA_TRY_GOTO(cudaMemcpyAsync(out->data, src, (size_t)kept * esize,
                                              cudaMemcpyDeviceToDevice, cu->stream),
                              st, done);
        goto done;
    }
    for (int r = 0; runs > 0; r++, runs--) {
        int hi = nd - 1; /* the innermost run of reduced dims: [lo, hi] */
        while (!reduced[hi])
            hi--;
        int lo = hi;
        while (lo > 0 && reduced[lo - 1])
            lo--;
        int64_t outer = 1, len = 1, inner = 1;
        for (int d = 0; d < lo; d++)
            outer *= size[d];
        for (int d = lo; d <= hi; d++)
            len *= size[d];
        for (int d = hi + 1; d < nd; d++)
            inner *= size[d];
        void *dst = out->data;
        if (runs > 1) {
            KBV_TRY_GOTO(be->alloc(be, (size_t)(outer * inner) * esize, &stage[r % 2]), st, done);
            dst = stage[r % 2];
        }
        KBV_TRY_GOTO(kbv_cuda_launched(kbv_cuda_launch_reduce_dim(cu->stream, dim_op_of(node->op),
                                                                  in.is_f64, src, dst, outer,
                                                                  len, inner),
                                       node),
                     st, done);
        /* the run is gone from the shape; the previous stage is read no more */
        for (int d = lo; d + (hi - lo + 1) < nd; d++) {
            size[d] = size[d + (hi - lo + 1)];
            reduced[d] = reduced[d + (hi - lo + 1)];
        }
        nd -= hi - lo + 1;
        if (src != in.x.data) {
            be->release(be, stage[(r + 1) % 2]);
            stage[(r + 1) % 2] = NULL;
        }
        src = dst;
    }
done:
    be->release(be, stage[0]);
    be->release(be, stage[1]);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_logsumexp(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0];
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "logsumexp: no attributes");
    unsigned mask = 0;
    KBV_TRY(kbv_reduce_dims_mask(node->def, a->ndim, &mask));
    int dim = 0;
    while (!((mask >> dim) & 1u))
        dim++;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= a->shape[d];
    for (int d = dim + 1; d < a->ndim; d++)
        inner *= a->shape[d];
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get(be, node, a, out, outer * inner, a->dtype, &in));
    kbv_status st = kbv_cuda_launched(kbv_cuda_launch_logsumexp(cu->stream, in.is_f64, in.x.data,
                                                                out->data, outer, a->shape[dim],
                                                                inner),
                                      node);
    kbv_cuda_operand_release(be, &in);
    return st;
}
