/* The CUDA elementwise pieces of the normalisation, GELU and loss modules
 * (pow, sqrt, log, rsub_scalar, clamp_min) and a * bool mask, through the
 * kernels of cuda_pointwise.cu, and attention's masked_fill
 * (cuda_masked_fill.cu). (The activations, the scalar and binary
 * arithmetic run in cuda_ops.c's elementwise ops.) */
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"

kbv_status kbv_cuda_op_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const int64_t n = kbv_tensor_numel(&args[0]);
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, n, args[0].dtype, &in));
    kbv_status st = kbv_cuda_launched(kbv_cuda_launch_pointwise(cu->stream, node->op, in.kind,
                                                                node->def ? node->def->f[0] : 0.0,
                                                                in.x.data, out->data, n),
                                      node);
    kbv_cuda_operand_release(be, &in);
    return st;
}

kbv_status kbv_cuda_op_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0], *m = &args[1];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x, &kind));
    if (m->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "mul_mask: the mask is %s, not bool",
                        kbv_dtype_name(m->dtype));
    const int64_t n = kbv_tensor_numel(out), nm = kbv_tensor_numel(m);
    KBV_TRY(kbv_cuda_check_out(out, n, x->dtype, "mul_mask"));
    /* contiguous x of the output's shape; the mask either the same or one
     * trailing row repeated */
    const bool row_mask = nm > 0 && n % nm == 0 && m->ndim >= 1 && out->ndim >= 1 &&
                          nm == out->shape[out->ndim - 1];
    if (!kbv_tensor_is_contiguous(x) || kbv_tensor_numel(x) != n ||
        !kbv_tensor_is_contiguous(m) || (nm != n && !row_mask))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "mul_mask: supported are a contiguous tensor and a same-shape or "
                        "last-dim mask");
    return kbv_cuda_launched(kbv_cuda_launch_mul_mask(cu->stream, kind, x->data, m->data,
                                                      out->data, n, nm == n ? n : nm),
                             node);
}

/* Whether mask, contiguous, is out's trailing dims up to leading 1s (so it
 * repeats every numel(mask) elements of the output). */
static bool mask_is_trailing(const kbv_tensor *mask, const kbv_tensor *out)
{
    if (!kbv_tensor_is_contiguous(mask))
        return false;
    int first = 0;
    while (first < mask->ndim && mask->shape[first] == 1)
        first++;
    const int kept = mask->ndim - first;
    if (kept > out->ndim)
        return false;
    for (int d = 0; d < kept; d++)
        if (mask->shape[first + d] != out->shape[out->ndim - kept + d])
            return false;
    return true;
}

kbv_status kbv_cuda_op_masked_fill(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0], *m = &args[1];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x, &kind));
    if (m->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "masked_fill: the mask is %s, not bool",
                        kbv_dtype_name(m->dtype));
    const int64_t n = kbv_tensor_numel(out);
    KBV_TRY(kbv_cuda_check_out(out, n, x->dtype, "masked_fill"));
    kbv_cuda_layout xl, ml;
    KBV_TRY(kbv_cuda_broadcast_layout(x, out->ndim, out->shape, &xl));
    KBV_TRY(kbv_cuda_broadcast_layout(m, out->ndim, out->shape, &ml));
    const bool periodic = kbv_tensor_is_contiguous(x) && kbv_tensor_numel(x) == n &&
                          kbv_tensor_numel(m) > 0 && mask_is_trailing(m, out);
    const double value = node->def ? node->def->f[0] : 0.0;
    return kbv_cuda_launched(kbv_cuda_launch_masked_fill(cu->stream, kind, x->data, &xl, m->data,
                                                         &ml, periodic ? kbv_tensor_numel(m) : 0,
                                                         value, out->data),
                             node);
}
