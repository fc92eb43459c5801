/* Elementwise ops: binary with broadcasting, with a scalar constant, unary.
 * Operands may be strided views; out is written through its own strides. */
#include <math.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_iter.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_elementwise_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_elementwise_t.h"

kbv_status kbv_cpu_unary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {&args[0]};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 1));
    if (out->dtype == KBV_F32)
        KBV_TRY(unary_run_f32(node, &it, args[0].data, out->data));
    else
        KBV_TRY(unary_run_f64(node, &it, args[0].data, out->data));
    return KBV_OK;
}

kbv_status kbv_cpu_binary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 2, out));
    kbv_cpu_iter it;
    const kbv_tensor *ins[2] = {&args[0], &args[1]};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 2));
    if (out->dtype == KBV_F32)
        KBV_TRY(binary_run_f32(node, &it, args[0].data, args[1].data, out->data));
    else
        KBV_TRY(binary_run_f64(node, &it, args[0].data, args[1].data, out->data));
    return KBV_OK;
}
