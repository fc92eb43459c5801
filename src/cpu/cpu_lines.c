/* Line iteration along one dim (cpu_lines.h): the dim is collapsed to
 * extent 1 in every operand, and the strided iterator visits line starts. */
#include "cpu/cpu_lines.h"

#include <string.h>

kbv_status kbv_cpu_resolve_dim(const char *op, const kbv_tensor *t, int64_t dim, int *out)
{
    if (t->ndim == 0 || dim < -t->ndim || dim >= t->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %d dims", op,
                        (long long)dim, t->ndim);
    *out = (int)(dim < 0 ? dim + t->ndim : dim);
    return KBV_OK;
}

kbv_status kbv_cpu_lines_init(kbv_cpu_lines *l, const kbv_tensor *out, bool out_has_dim,
                              const kbv_tensor *const *ins, int n_ins, int dim)
{
    memset(l, 0, sizeof *l);
    if (n_ins < 1 || n_ins + 1 > KBV_CPU_ITER_MAX_OPERANDS)
        return kbv_fail(KBV_ERR_INVALID, "lines: %d inputs", n_ins);
    const kbv_tensor *a = ins[0];
    if (dim < 0 || dim >= a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "lines: dim %d of a %d-dim tensor", dim, a->ndim);
    kbv_tensor starts[KBV_CPU_ITER_MAX_OPERANDS];
    const kbv_tensor *views[KBV_CPU_ITER_MAX_OPERANDS];
    for (int k = 0; k < n_ins; k++) {
        const kbv_tensor *in = ins[k];
        if (in->ndim != a->ndim)
            return kbv_fail(KBV_ERR_INVALID, "lines: operands of %d and %d dims", a->ndim,
                            in->ndim);
        for (int d = 0; d < a->ndim; d++)
            if (d != dim && in->shape[d] != a->shape[d])
                return kbv_fail(KBV_ERR_INVALID, "lines: operands differ in dim %d", d);
        starts[k + 1] = *in;
        starts[k + 1].shape[dim] = 1;
        views[k] = &starts[k + 1];
        l->step[k + 1] = in->stride[dim];
    }
    /* out as a tensor of a's rank with extent 1 along dim */
    kbv_tensor *o = &starts[0];
    *o = *out;
    if (out_has_dim) {
        if (out->ndim != a->ndim)
            return kbv_fail(KBV_ERR_INVALID, "lines: output has %d dims, input %d", out->ndim,
                            a->ndim);
        l->step[0] = out->stride[dim];
    } else {
        if (out->ndim != a->ndim - 1)
            return kbv_fail(KBV_ERR_INVALID, "lines: output has %d dims, input %d", out->ndim,
                            a->ndim);
        o->ndim = a->ndim;
        for (int d = 0, s = 0; d < a->ndim; d++) {
            if (d == dim) {
                o->shape[d] = 1;
                o->stride[d] = 0;
                continue;
            }
            o->shape[d] = out->shape[s];
            o->stride[d] = out->stride[s];
            s++;
        }
        l->step[0] = 0;
    }
    for (int d = 0; d < a->ndim; d++)
        if (d != dim && o->shape[d] != a->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "lines: output and input differ in dim %d", d);
    o->shape[dim] = 1;
    l->len = a->shape[dim];
    KBV_TRY(kbv_cpu_iter_init(&l->it, o, views, n_ins));
    return KBV_OK;
}
