/* The CUDA elementwise pieces of the normalisation, GELU and loss modules
 * (pow, sqrt, log, rsub_scalar, clamp_min) and a * bool mask, through the
 * kernels of cuda_pointwise.cu, and attention's masked_fill and eq_scalar
 * (cuda_mask.cu). (The activations, the scalar and binary
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

/* A float tensor, a bool mask and out of x's dtype: the checks mul_mask and
 * masked_fill share; *kind is x's float kind. */
static kbv_status masked_operands(kbv_backend *be, const kbv_tensor *x, const kbv_tensor *m,
                                  kbv_tensor *out, const char *what, int *kind)
{
    KBV_TRY(kbv_cuda_float_kind(be, x, kind));
    if (m->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "%s: the mask is %s, not bool", what,
                        kbv_dtype_name(m->dtype));
    return kbv_cuda_check_out(out, kbv_tensor_numel(out), x->dtype, what);
}

kbv_status kbv_cuda_op_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0], *m = &args[1];
    int kind;
    KBV_TRY(masked_operands(be, x, m, out, "mul_mask", &kind));
    const int64_t n = kbv_tensor_numel(out), nm = kbv_tensor_numel(m);
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
    KBV_TRY(masked_operands(be, x, m, out, "masked_fill", &kind));
    const int64_t n = kbv_tensor_numel(out);
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

kbv_status kbv_cuda_op_eq_scalar(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x, &kind));
    const int64_t n = kbv_tensor_numel(out);
    KBV_TRY(kbv_cuda_check_out(out, n, KBV_BOOL, "eq_scalar"));
    kbv_cuda_layout xl;
    KBV_TRY(kbv_cuda_broadcast_layout(x, out->ndim, out->shape, &xl));
    const double value = node->def ? node->def->f[0] : 0.0;
    return kbv_cuda_launched(kbv_cuda_launch_eq_scalar(cu->stream, kind, x->data, &xl, value,
                                                       out->data),
                             node);
}
