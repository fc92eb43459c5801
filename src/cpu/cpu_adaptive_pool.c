/* adaptive_avg_pool{1,2,3}d on the CPU: PyTorch's windows, start
 * floor(i * in / out) and end ceil((i + 1) * in / out), overlapping where
 * out does not divide in. The input may be a strided view. */
#include "cpu/cpu_backend.h"
#include "cpu/cpu_conv_pool.h"
#include "graph/ops_rules.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_adaptive_pool_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_adaptive_pool_t.h"

kbv_status kbv_cpu_adaptive_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    kbv_adaptive ad;
    KBV_TRY(kbv_adaptive_parse(node->op, node->def ? node->def->s : NULL, &ad));
    const kbv_tensor *x = &args[0];
    if (x->ndim != out->ndim || x->ndim < ad.spatial + 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: a %d-dim input for a %d-dim output",
                        kbv_cpu_op_name(node), x->ndim, out->ndim);
    for (int d = 0; d < x->ndim; d++) {
        bool pooled = d >= x->ndim - ad.spatial;
        if ((!pooled && out->shape[d] != x->shape[d]) || out->shape[d] <= 0 || x->shape[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: output shape does not fit the input",
                            kbv_cpu_op_name(node));
    }
    if (x->dtype == KBV_F32)
        adaptive_avg_pool_f32(x, out, ad.spatial);
    else
        adaptive_avg_pool_f64(x, out, ad.spatial);
    return KBV_OK;
}
