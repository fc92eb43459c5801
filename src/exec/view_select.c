/* The select view (see view_select.h). */
#include "exec/view_select.h"

kbv_status kbv_select_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    if (a->ndim < 1 || out->ndim != a->ndim - 1 || out->dtype != a->dtype)
        return kbv_fail(KBV_ERR_INVALID, "select: a %d-dim %s operand for a %d-dim %s result",
                        a->ndim, kbv_dtype_name(a->dtype), out->ndim, kbv_dtype_name(out->dtype));
    int64_t dim = node->def->i[0] < 0 ? node->def->i[0] + a->ndim : node->def->i[0];
    if (dim < 0 || dim >= a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "select: dim %lld of a %d-dim operand",
                        (long long)node->def->i[0], a->ndim);
    int64_t index = node->def->i[1] < 0 ? node->def->i[1] + a->shape[dim] : node->def->i[1];
    if (index < 0 || index >= a->shape[dim])
        return kbv_fail(KBV_ERR_INVALID, "select: index %lld of a dim of %lld",
                        (long long)node->def->i[1], (long long)a->shape[dim]);
    for (int d = 0, j = 0; d < a->ndim; d++) {
        if (d == dim)
            continue;
        if (out->shape[j] != a->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "select: result dim %d is %lld, the operand's %lld",
                            j, (long long)out->shape[j], (long long)a->shape[d]);
        out->stride[j++] = a->stride[d];
    }
    out->data = (char *)a->data + (size_t)(index * a->stride[dim]) * kbv_dtype_size(a->dtype);
    return KBV_OK;
}
