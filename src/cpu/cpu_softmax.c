/* torch.softmax / torch.log_softmax along dim i[0] (negative counts from the
 * end). Each line along the dim is independent; lines are visited with the
 * strided iterator, so the input may be a view. */
#include <math.h>
#include <stdbool.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_iter.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_softmax_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_softmax_t.h"

kbv_status kbv_cpu_softmax(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    const kbv_tensor *in = &args[0];
    if (in->ndim != out->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: input has %d dims, output %d",
                        kbv_cpu_op_name(node), in->ndim, out->ndim);
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: input and output shapes differ",
                            kbv_cpu_op_name(node));

    /* A 0-dim tensor is a single line of length 1 (PyTorch accepts dim 0 and -1). */
    int64_t dim = node->def ? node->def->i[0] : -1;
    int nd = in->ndim;
    int span = nd > 0 ? nd : 1;
    if (dim < -span || dim >= span)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld out of range for %d dims",
                        kbv_cpu_op_name(node), (long long)dim, nd);
    if (dim < 0)
        dim += span;
    int64_t len = nd > 0 ? in->shape[dim] : 1;
    int64_t sx = nd > 0 ? in->stride[dim] : 0;
    int64_t sy = nd > 0 ? out->stride[dim] : 0;

    /* Iterate over line starts: the same tensors with the dim collapsed to 1. */
    kbv_tensor in_lines = *in, out_lines = *out;
    if (nd > 0) {
        in_lines.shape[dim] = 1;
        out_lines.shape[dim] = 1;
    }
    if (len == 0)
        return KBV_OK;
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {&in_lines};
    KBV_TRY(kbv_cpu_iter_init(&it, &out_lines, ins, 1));
    bool is_log = node->op == KBV_OP_LOG_SOFTMAX;
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it)) {
        for (int64_t j = 0; j < it.inner; j++) {
            int64_t oy = it.offset[0] + j * it.inner_stride[0];
            int64_t ox = it.offset[1] + j * it.inner_stride[1];
            if (out->dtype == KBV_F32)
                softmax_line_f32((const float *)in->data + ox, sx, (float *)out->data + oy, sy,
                                 len, is_log);
            else
                softmax_line_f64((const double *)in->data + ox, sx, (double *)out->data + oy,
                                 sy, len, is_log);
        }
    }
    return KBV_OK;
}
