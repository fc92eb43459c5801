/* Elementwise ops of the normalisation, GELU and loss problems: pow with a
 * scalar exponent, sqrt, log, scalar - a, clamp(min=), a * bool mask, and
 * attention's a.masked_fill(mask, value).
 * Operands may be strided views; the mask broadcasts. */
#include <math.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_iter.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_pointwise_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_pointwise_t.h"

kbv_status kbv_cpu_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {&args[0]};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 1));
    if (out->dtype == KBV_F32)
        return pointwise_run_f32(node, &it, args[0].data, out->data);
    return pointwise_run_f64(node, &it, args[0].data, out->data);
}

/* The checks mul_mask and masked_fill share: a float tensor of the output's
 * dtype and a bool mask, all with memory. */
static kbv_status check_masked(const kbv_node *node, const kbv_tensor *args,
                               const kbv_tensor *out)
{
    const char *op = kbv_cpu_op_name(node);
    if (node->n_args != 2 || args[1].dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "%s: needs a tensor and a bool mask", op);
    if ((out->dtype != KBV_F32 && out->dtype != KBV_F64) || args[0].dtype != out->dtype)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: %s tensor into a %s output", op,
                        kbv_dtype_name(args[0].dtype), kbv_dtype_name(out->dtype));
    if ((!args[0].data && kbv_tensor_numel(&args[0]) > 0) ||
        (!args[1].data && kbv_tensor_numel(&args[1]) > 0) || (!out->data && kbv_tensor_numel(out) > 0))
        return kbv_fail(KBV_ERR_INVALID, "%s: an operand has no memory", op);
    return KBV_OK;
}

kbv_status kbv_cpu_masked_fill(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    (void)be;
    KBV_TRY(check_masked(node, args, out));
    kbv_cpu_iter it;
    const kbv_tensor *ins[2] = {&args[0], &args[1]};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 2));
    const double value = node->def ? node->def->f[0] : 0.0;
    if (out->dtype == KBV_F32)
        masked_fill_run_f32(&it, args[0].data, args[1].data, value, out->data);
    else
        masked_fill_run_f64(&it, args[0].data, args[1].data, value, out->data);
    return KBV_OK;
}

kbv_status kbv_cpu_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    (void)be;
    KBV_TRY(check_masked(node, args, out));
    kbv_cpu_iter it;
    const kbv_tensor *ins[2] = {&args[0], &args[1]};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 2));
    if (out->dtype == KBV_F32)
        mul_mask_run_f32(&it, args[0].data, args[1].data, out->data);
    else
        mul_mask_run_f64(&it, args[0].data, args[1].data, out->data);
    return KBV_OK;
}
