/* Losses: cross entropy with int64 class targets, smooth L1 (Huber), KL
 * divergence with batchmean, triplet margin; each gives a 0-dim mean.
 * Operands must be contiguous (the problems hand these ops graph inputs). */
#include <math.h>
#include <stdbool.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_loss_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_loss_t.h"

static kbv_status store_scalar(kbv_tensor *out, double v)
{
    if (out->ndim != 0)
        return kbv_fail(KBV_ERR_INVALID, "loss: the output has %d dims, not 0", out->ndim);
    if (out->dtype == KBV_F32)
        *(float *)out->data = (float)v;
    else
        *(double *)out->data = v;
    return KBV_OK;
}

kbv_status kbv_cpu_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    const bool is_ce = node->op == KBV_OP_CROSS_ENTROPY;
    const int n_args = node->op == KBV_OP_TRIPLET_MARGIN ? 3 : 2;
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes", op);
    if (is_ce) {
        if (node->n_args != 2 || args[1].dtype != KBV_I64 ||
            (!args[1].data && kbv_tensor_numel(&args[1]) > 0) ||
            (!args[0].data && kbv_tensor_numel(&args[0]) > 0) || !out->data)
            return kbv_fail(KBV_ERR_INVALID,
                            "cross_entropy: logits and int64 targets with memory needed");
        if ((out->dtype != KBV_F32 && out->dtype != KBV_F64) || args[0].dtype != out->dtype)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "cross_entropy: %s logits into %s",
                            kbv_dtype_name(args[0].dtype), kbv_dtype_name(out->dtype));
    } else {
        KBV_TRY(kbv_cpu_check_float(node, args, n_args, out));
    }
    for (int k = 0; k < n_args; k++)
        if (!kbv_tensor_is_contiguous(&args[k]))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous", op, k);
    const kbv_tensor *a = &args[0];
    const int64_t n = kbv_tensor_numel(a);
    for (int k = 1; k < n_args && !is_ce; k++)
        if (kbv_tensor_numel(&args[k]) != n)
            return kbv_fail(KBV_ERR_INVALID, "%s: operands of %lld and %lld elements", op,
                            (long long)n, (long long)kbv_tensor_numel(&args[k]));
    const bool f32 = out->dtype == KBV_F32;
    const double *f = node->def->f;
    double v = 0.0;
    switch (node->op) {
    case KBV_OP_CROSS_ENTROPY:
        if (a->ndim != 2 || args[1].ndim != 1 || args[1].shape[0] != a->shape[0])
            return kbv_fail(KBV_ERR_INVALID, "cross_entropy: logits [N, C] and targets [N]");
        KBV_TRY(f32 ? cross_entropy_f32(a->data, args[1].data, a->shape[0], a->shape[1], &v)
                    : cross_entropy_f64(a->data, args[1].data, a->shape[0], a->shape[1], &v));
        break;
    case KBV_OP_SMOOTH_L1:
        v = f32 ? smooth_l1_f32(a->data, args[1].data, n, f[0])
                : smooth_l1_f64(a->data, args[1].data, n, f[0]);
        break;
    case KBV_OP_KL_DIV: /* batchmean: the sum over everything, divided by the batch size */
        if (a->ndim < 1)
            return kbv_fail(KBV_ERR_INVALID, "kl_div: batchmean needs at least 1 dim");
        v = (f32 ? kl_div_sum_f32(a->data, args[1].data, n)
                 : kl_div_sum_f64(a->data, args[1].data, n)) /
            (double)a->shape[0];
        break;
    case KBV_OP_TRIPLET_MARGIN:
        if (a->ndim != 2 || f[1] != 2.0)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "triplet_margin_loss: [N, D] operands, p = 2");
        v = f32 ? triplet_f32(a->data, args[1].data, args[2].data, a->shape[0], a->shape[1],
                              f[0], f[2])
                : triplet_f64(a->data, args[1].data, args[2].data, a->shape[0], a->shape[1],
                              f[0], f[2]);
        break;
    default:
        return kbv_fail(KBV_ERR_INVALID, "%s is not a loss", op);
    }
    return store_scalar(out, v);
}
