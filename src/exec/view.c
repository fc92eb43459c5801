/* View ops: the operand's memory under new strides (see view.h). */
#include "exec/view.h"

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

kbv_status kbv_view_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    const char *name = (unsigned)node->op < KBV_OP_COUNT && kbv_op_table[node->op].name
                           ? kbv_op_table[node->op].name
                           : "view";
    if (!kbv_op_table[node->op].is_view)
        return kbv_fail(KBV_ERR_INTERNAL, "%s is not a view op", name);
    if (out->dtype != a->dtype)
        return kbv_fail(KBV_ERR_INVALID, "%s: a %s operand for a %s result", name,
                        kbv_dtype_name(a->dtype), kbv_dtype_name(out->dtype));
    if (!kbv_view_strides(a->ndim, a->shape, a->stride, out->ndim, out->shape, out->stride))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "%s: the operand's strides cannot walk the result's shape; PyTorch's "
                        ".view fails here too (reshape and flatten would copy)",
                        name);
    out->data = a->data;
    return KBV_OK;
}
