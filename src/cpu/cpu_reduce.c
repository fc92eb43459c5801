/* Reductions: along one dim (sum, mean, max, min, argmax, argmin, 2-norm;
 * keepdim i[1]; F.normalize by the 2-norm), over several dims (sum, mean, amax; logsumexp over one)
 * and over the whole tensor (mean, Frobenius norm). Operands
 * may be strided views. */
#include <math.h>
#include <stdbool.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_lines.h"
#include "graph/ops_rules.h"

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

kbv_status kbv_cpu_normalize(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    const kbv_tensor *x = &args[0];
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes (dim, eps)", op);
    int dim = 0;
    KBV_TRY(kbv_cpu_resolve_dim(op, x, node->def->i[0], &dim));
    kbv_cpu_lines l;
    const kbv_tensor *ins[1] = {x};
    KBV_TRY(kbv_cpu_lines_init(&l, out, true, ins, 1, dim));
    if (x->dtype == KBV_F32)
        normalize_lines_f32(&l, node->def->f[0], x->data, out->data);
    else
        normalize_lines_f64(&l, node->def->f[0], x->data, out->data);
    return KBV_OK;
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
    double v = fro ? sqrt(acc) : acc / (double)kbv_tensor_numel(x);
    if (out->dtype == KBV_F32)
        *(float *)out->data = (float)v;
    else
        *(double *)out->data = v;
    return KBV_OK;
}

/* sum_dims, mean_dims, amax_dims (a bitmask of dims) and logsumexp (one
 * dim), keepdim i[1]: x splits into its kept dims, walked with the output,
 * and its reduced dims, walked for each output element. */
kbv_status kbv_cpu_reduce_dims(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    const kbv_tensor *x = &args[0];
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes (dims, keepdim)", op);
    unsigned mask = 0;
    KBV_TRY(kbv_reduce_dims_mask(node->def, x->ndim, &mask));
    const bool keepdim = node->def->i[1] != 0;
    kbv_tensor kept = {.data = x->data, .dtype = x->dtype}, red = {.data = x->data,
                                                                    .dtype = x->dtype};
    kbv_tensor out_kept = {.data = out->data, .dtype = out->dtype};
    int64_t count = 1;
    int o = 0;
    for (int d = 0; d < x->ndim; d++) {
        if ((mask >> d) & 1u) {
            red.shape[red.ndim] = x->shape[d];
            red.stride[red.ndim++] = x->stride[d];
            count *= x->shape[d];
            if (keepdim)
                o++;
            continue;
        }
        if (o >= out->ndim || out->shape[o] != x->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: the output's shape does not fit the input's",
                            op);
        kept.shape[kept.ndim] = x->shape[d];
        kept.stride[kept.ndim++] = x->stride[d];
        out_kept.shape[out_kept.ndim] = out->shape[o];
        out_kept.stride[out_kept.ndim++] = out->stride[o];
        o++;
    }
    if (o != out->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: the output has %d dims, expected %d", op,
                        out->ndim, o);
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {&kept};
    KBV_TRY(kbv_cpu_iter_init(&it, &out_kept, ins, 1));
    if (x->dtype == KBV_F32)
        reduce_dims_run_f32(node->op, &it, x->data, &red, count, out->data);
    else
        reduce_dims_run_f64(node->op, &it, x->data, &red, count, out->data);
    return KBV_OK;
}
