/* View ops: the operand's memory under new strides (see view.h). */
#include "exec/view.h"

#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

bool kbv_view_strides(int ndim, const int64_t *shape, const int64_t *stride, int new_ndim,
                      const int64_t *new_shape, int64_t *new_stride)
{
    int64_t numel = 1, new_numel = 1;
    for (int d = 0; d < ndim; d++)
        numel *= shape[d];
    for (int d = 0; d < new_ndim; d++)
        new_numel *= new_shape[d];
    if (numel != new_numel)
        return false;
    if (ndim == 0 || numel == 0) { /* any strides walk it: contiguous ones */
        int64_t s = 1;
        for (int d = new_ndim - 1; d >= 0; d--) {
            new_stride[d] = s;
            s *= new_shape[d] > 1 ? new_shape[d] : 1;
        }
        return true;
    }
    /* Walk the old dims from the last, in chunks that are contiguous among
     * themselves; each chunk must be covered exactly by new dims. */
    int view_d = new_ndim - 1;
    int64_t chunk_base = stride[ndim - 1], tensor_numel = 1, view_numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        tensor_numel *= shape[d];
        if (d == 0 || (shape[d - 1] != 1 && stride[d - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
                new_stride[view_d] = view_numel * chunk_base;
                view_numel *= new_shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (d > 0) {
                chunk_base = stride[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* The strides (and data offset, in elements) of a general view's result
 * out over a; false where the view needs a copy (reshape of strides that
 * do not nest, contiguous of a strided a). */
static bool general_view(const kbv_node *node, const kbv_tensor *a, kbv_tensor *out, int piece,
                         int64_t *offset)
{
    const kbv_node_def *nd = node->def;
    *offset = 0;
    switch (node->op) {
    case KBV_OP_TRANSPOSE_DIMS: {
        memcpy(out->stride, a->stride, sizeof out->stride);
        int d0 = kbv_wrap_dim(nd->i[0], a->ndim), d1 = kbv_wrap_dim(nd->i[1], a->ndim);
        if (a->ndim > 0 && d0 >= 0 && d1 >= 0) {
            out->stride[d0] = a->stride[d1];
            out->stride[d1] = a->stride[d0];
        }
        return true;
    }
    case KBV_OP_PERMUTE: {
        int perm[KBV_MAX_DIMS];
        if (kbv_permute_dims(nd, a->ndim, perm) != KBV_OK)
            return false;
        for (int d = 0; d < a->ndim; d++)
            out->stride[d] = a->stride[perm[d]];
        return true;
    }
    case KBV_OP_NARROW:
    case KBV_OP_SPLIT:
    case KBV_OP_CHUNK: {
        bool narrow = node->op == KBV_OP_NARROW;
        int d = kbv_wrap_dim(narrow ? nd->i[0] : nd->i[1], a->ndim);
        if (d < 0)
            return false;
        int64_t start = nd->i[1], length = 0;
        if (!narrow)
            kbv_split_piece(nd, a->shape[d], piece, &start, &length);
        memcpy(out->stride, a->stride, sizeof out->stride);
        *offset = start * a->stride[d];
        return true;
    }
    case KBV_OP_SLICE: {
        int64_t start[KBV_MAX_DIMS], step[KBV_MAX_DIMS], length[KBV_MAX_DIMS];
        if (kbv_slice_dims(NULL, nd->s, a->ndim, a->shape, start, step, length) != KBV_OK)
            return false;
        for (int d = 0; d < a->ndim; d++) {
            *offset += start[d] * a->stride[d];
            out->stride[d] = a->stride[d] * step[d];
        }
        return true;
    }
    case KBV_OP_EXPAND:
        for (int d = 0; d < out->ndim; d++) {
            int k = d - (out->ndim - a->ndim);
            out->stride[d] = k >= 0 && a->shape[k] == out->shape[d] ? a->stride[k] : 0;
        }
        return true;
    case KBV_OP_CONTIGUOUS:
        memcpy(out->stride, a->stride, sizeof out->stride);
        return kbv_tensor_is_contiguous(a);
    case KBV_OP_UNFOLD: { /* windows `step` apart along the dim, each walking it */
        int d = kbv_wrap_dim(nd->i[0], a->ndim);
        if (d < 0 || out->ndim != a->ndim + 1)
            return false;
        memcpy(out->stride, a->stride, sizeof out->stride);
        out->stride[d] = a->stride[d] * nd->i[2];
        out->stride[a->ndim] = a->stride[d];
        return true;
    }
    default: /* unsqueeze, squeeze, view, flatten, dropout, reshape */
        return kbv_view_strides(a->ndim, a->shape, a->stride, out->ndim, out->shape,
                                out->stride);
    }
}

bool kbv_view_needs_copy(const kbv_node *node, const kbv_tensor *args, const kbv_tensor *out)
{
    if ((unsigned)node->op >= KBV_OP_COUNT || !kbv_op_table[node->op].copy_unless_view)
        return false;
    kbv_tensor probe = *out;
    int64_t offset = 0;
    return !general_view(node, &args[0], &probe, 0, &offset);
}

kbv_status kbv_view_copy(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    const kbv_tensor *a = &args[0];
    kbv_op_fn clone = be->ops[KBV_OP_CLONE];
    if (!clone)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s needs clone, which %s does not implement",
                        kbv_op_table[node->op].name, be->name);
    if (kbv_tensor_numel(a) != kbv_tensor_numel(out) || !kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INTERNAL, "%s: a copy of %lld elements into %lld",
                        kbv_op_table[node->op].name, (long long)kbv_tensor_numel(a),
                        (long long)kbv_tensor_numel(out));
    /* a's elements in order into out's memory: a contiguous tensor of a's
     * shape over it, which out's shape then views */
    kbv_tensor in_order = *a;
    in_order.data = out->data;
    int64_t s = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        in_order.stride[d] = s;
        s *= a->shape[d];
    }
    kbv_node clone_node = *node;
    clone_node.op = KBV_OP_CLONE;
    return clone(be, &clone_node, a, &in_order);
}

kbv_status kbv_view_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    const char *name = (unsigned)node->op < KBV_OP_COUNT && kbv_op_table[node->op].name
                           ? kbv_op_table[node->op].name
                           : "view";
    if ((unsigned)node->op >= KBV_OP_COUNT || !kbv_op_table[node->op].is_view)
        return kbv_fail(KBV_ERR_INTERNAL, "%s is not a view op", name);
    int n_outs = node->n_outs > 0 ? node->n_outs : 1;
    for (int j = 0; j < n_outs; j++) {
        kbv_tensor *o = &out[j];
        if (o->dtype != a->dtype)
            return kbv_fail(KBV_ERR_INVALID, "%s: a %s operand for a %s result", name,
                            kbv_dtype_name(a->dtype), kbv_dtype_name(o->dtype));
        int64_t offset = 0;
        if (!general_view(node, a, o, j, &offset))
            return kbv_fail(KBV_ERR_UNSUPPORTED,
                            "%s: the operand's strides cannot walk the result's shape; PyTorch's "
                            ".view fails here too (reshape and flatten would copy)",
                            name);
        o->data = a->data ? (char *)a->data + offset * (int64_t)kbv_dtype_size(a->dtype) : NULL;
    }
    return KBV_OK;
}
