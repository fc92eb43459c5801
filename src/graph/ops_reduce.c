/* Shape rules of the reductions over several dims (sum, mean, amax with a
 * bitmask of dims) and of logsumexp (one dim, negative allowed); keepdim
 * i[1] keeps each reduced dim as size 1, as PyTorch does. */
#include "graph/ops_rules.h"
#include "graph/ops_table.h"

kbv_status kbv_reduce_dims_mask(const kbv_node_def *n, int ndim, unsigned *mask)
{
    const char *op = kbv_op_table[n->op].name;
    if (n->op == KBV_OP_LOGSUMEXP) {
        int64_t d = n->i[0];
        if (ndim == 0 || d < -ndim || d >= ndim)
            return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %d dims", op,
                            (long long)d, ndim);
        *mask = 1u << (d < 0 ? d + ndim : d);
        return KBV_OK;
    }
    if (n->i[0] <= 0 || n->i[0] >= (int64_t)1 << ndim)
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: the dims bitmask 0x%llx must name at least one of the %d dims "
                        "(bit d: dim d)",
                        op, (unsigned long long)n->i[0], ndim);
    *mask = (unsigned)n->i[0];
    return KBV_OK;
}

kbv_status kbv_shape_reduce_dims(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out)
{
    const kbv_value *a = args[0];
    const char *op = kbv_op_table[n->op].name;
    char da[160];
    if (!kbv_dtype_is_float(a->dtype))
        return kbv_fail(KBV_ERR_INVALID, "%s: %s must be a float tensor", op,
                        kbv_value_describe(a, da, sizeof da));
    unsigned mask = 0;
    KBV_TRY(kbv_reduce_dims_mask(n, a->ndim, &mask));
    if (n->i[1] != 0 && n->i[1] != 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: keepdim is 0 or 1, got %lld", op,
                        (long long)n->i[1]);
    out->dtype = a->dtype;
    out->ndim = 0;
    for (int d = 0; d < a->ndim; d++) {
        bool reduced = (mask >> d) & 1u;
        if (reduced && a->shape[d] == 0 && n->op == KBV_OP_AMAX_DIMS)
            return kbv_fail(KBV_ERR_INVALID, "%s: dim %d of %s has no elements", op, d,
                            kbv_value_describe(a, da, sizeof da));
        if (reduced && !n->i[1])
            continue;
        out->shape[out->ndim++] = reduced ? 1 : a->shape[d];
    }
    return KBV_OK;
}

/* max, subtract, exp and add per element, one log per result. */
double kbv_flops_logsumexp(const kbv_graph *g, const kbv_node *n)
{
    return 4.0 * (double)kbv_value_numel(&g->values[n->args[0]]) +
           (double)kbv_value_numel(&g->values[n->out]);
}
