/* Reductions: along one dim (sum, mean, max, min, argmax, argmin, 2-norm;
 * keepdim i[1]) and over the whole tensor (mean, Frobenius norm). Operands
 * may be strided views. */
#include <math.h>
#include <stdbool.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops_norm.h"
#include "cpu/cpu_lines.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_reduce_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_reduce_t.h"

kbv_status kbv_cpu_reduce(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    const kbv_tensor *x = &args[0];
    bool is_index = node->op == KBV_OP_ARGMAX || node->op == KBV_OP_ARGMIN;
    if (is_index) {
        if (out->dtype != KBV_I64)
            return kbv_fail(KBV_ERR_INVALID, "%s: output is %s, not int64", op,
                            kbv_dtype_name(out->dtype));
        kbv_tensor as_float = *out;
        as_float.dtype = x->dtype;
        KBV_TRY(kbv_cpu_check_float(node, args, 1, &as_float));
    } else {
        KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    }
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes (dim, keepdim)", op);
    int dim = 0;
    KBV_TRY(kbv_cpu_resolve_dim(op, x, node->def->i[0], &dim));
    if (x->shape[dim] == 0 && node->op != KBV_OP_SUM && node->op != KBV_OP_NORM_DIM)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %d has no elements", op, dim);
    kbv_cpu_lines l;
    const kbv_tensor *ins[1] = {x};
    KBV_TRY(kbv_cpu_lines_init(&l, out, out->ndim == x->ndim, ins, 1, dim));
    if (x->dtype == KBV_F32)
        return reduce_lines_f32(node, &l, x->data, out->data);
    return reduce_lines_f64(node, &l, x->data, out->data);
}

kbv_status kbv_cpu_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    if (out->ndim != 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has %d dims, not 0", kbv_cpu_op_name(node),
                        out->ndim);
    const kbv_tensor *x = &args[0];
    bool fro = node->op == KBV_OP_NORM_FRO;
    double acc = x->dtype == KBV_F32 ? reduce_all_f32(x, fro) : reduce_all_f64(x, fro);
    double v = fro ? sqrt(acc) : acc / (double)kbv_cpu_numel(x);
    if (out->dtype == KBV_F32)
        *(float *)out->data = (float)v;
    else
        *(double *)out->data = v;
    return KBV_OK;
}
