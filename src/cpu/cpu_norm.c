/* Normalisation ops: batch norm with batch statistics (training mode),
 * instance norm, group norm and layer norm, PyTorch's semantics (biased
 * variance, eps inside the square root). Operands must be contiguous (the
 * problems hand these ops graph inputs). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_norm_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_norm_t.h"

kbv_status kbv_cpu_norm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    const bool affine = node->op != KBV_OP_INSTANCE_NORM;
    KBV_TRY(kbv_cpu_check_float(node, args, affine ? 3 : 1, out));
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes (eps)", op);
    const kbv_tensor *x = &args[0];
    for (int k = 0; k < (affine ? 3 : 1); k++)
        if (!kbv_tensor_is_contiguous(&args[k]))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous", op, k);
    if (!kbv_tensor_is_contiguous(out) || out->ndim != x->ndim || kbv_tensor_numel(out) != kbv_tensor_numel(x))
        return kbv_fail(KBV_ERR_INVALID, "%s: the output must be contiguous in x's shape", op);
    if (x->ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: input needs at least 2 dims", op);

    /* Viewed as [n, channels, spatial]; layer norm as [rows, 1, normalised size]. */
    int64_t n = x->shape[0], channels = x->shape[1], spatial = 1, groups = 1;
    for (int d = 2; d < x->ndim; d++)
        spatial *= x->shape[d];
    if (node->op == KBV_OP_GROUP_NORM) {
        groups = node->def->i[0];
        if (groups <= 0 || channels % groups != 0)
            return kbv_fail(KBV_ERR_INVALID, "group_norm: %lld channels in %lld groups",
                            (long long)channels, (long long)groups);
    }
    if (affine && node->op != KBV_OP_LAYER_NORM &&
        (kbv_tensor_numel(&args[1]) != channels || kbv_tensor_numel(&args[2]) != channels))
        return kbv_fail(KBV_ERR_INVALID, "%s: weight and bias need %lld elements", op,
                        (long long)channels);
    if (node->op == KBV_OP_LAYER_NORM) {
        int64_t size = kbv_tensor_numel(&args[1]);
        if (size == 0 || kbv_tensor_numel(&args[2]) != size || kbv_tensor_numel(x) % size != 0)
            return kbv_fail(KBV_ERR_INVALID, "layer_norm: weight and bias of %lld elements",
                            (long long)size);
        n = kbv_tensor_numel(x) / size;
        channels = 1;
        spatial = size;
    }
    const double eps = node->def->f[0];
    const void *w = affine ? args[1].data : NULL, *b = affine ? args[2].data : NULL;
    if (out->dtype == KBV_F32)
        norm_run_f32(node->op, x->data, out->data, w, b, n, channels, spatial, groups, eps);
    else
        norm_run_f64(node->op, x->data, out->data, w, b, n, channels, spatial, groups, eps);
    return KBV_OK;
}
