/* pad and roll on CUDA (graph/ops_shifted.h): one kernel writes the
 * contiguous result, reading the operand where it lies (strided) and the
 * pad value outside it, as PyTorch's constant_pad_nd and roll each write
 * one new tensor. index (a[b]): one kernel gathers the rows. */
#include <string.h>

#include "core/bf16.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"
#include "graph/ops_shifted.h"

/* The pad value's bytes in dtype dt (low bytes of the word). */
static kbv_status fill_bits(kbv_dtype dt, double v, uint64_t *bits)
{
    *bits = 0;
    switch (dt) {
    case KBV_F32: { float x = (float)v; memcpy(bits, &x, sizeof x); return KBV_OK; }
    case KBV_F64: memcpy(bits, &v, sizeof v); return KBV_OK;
    case KBV_I32: { int32_t x = (int32_t)v; memcpy(bits, &x, sizeof x); return KBV_OK; }
    case KBV_I64: { int64_t x = (int64_t)v; memcpy(bits, &x, sizeof x); return KBV_OK; }
    case KBV_BF16: /* the Python float through float, as c10::BFloat16(float) */
        *bits = kbv_bf16_from_float((float)v);
        return KBV_OK;
    default:
        return kbv_fail(KBV_ERR_UNSUPPORTED, "pad: no %s fill on CUDA", kbv_dtype_name(dt));
    }
}

kbv_status kbv_cuda_op_shifted(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0];
    kbv_shift_map m;
    KBV_TRY(kbv_shift_map_of(node->def, a->ndim, a->shape, &m));
    KBV_TRY(kbv_cuda_check_out(out, kbv_tensor_numel(out), a->dtype, kbv_cuda_op_name(node->op)));
    for (int d = 0; d < a->ndim; d++)
        if (out->shape[d] != m.out_shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: result dim %d is %lld, the map's %lld",
                            kbv_cuda_op_name(node->op), d, (long long)out->shape[d],
                            (long long)m.out_shape[d]);
    uint64_t fill = 0;
    if (!m.wrap)
        KBV_TRY(fill_bits(a->dtype, node->def->f[0], &fill));
    kbv_cuda_layout in = {.ndim = a->ndim};
    for (int d = 0; d < a->ndim; d++) {
        in.shape[d] = a->shape[d];
        in.stride[d] = a->stride[d];
    }
    return kbv_cuda_launched(kbv_cuda_launch_shifted_copy(cu->stream, kbv_dtype_size(a->dtype),
                                                          a->data, &in, m.out_shape, m.offset,
                                                          m.wrap, fill, out->data),
                             node);
}

kbv_status kbv_cuda_op_index(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0], *b = &args[1];
    if (a->ndim < 1 || b->ndim != 1 || b->dtype != KBV_I64 || !kbv_tensor_is_contiguous(a) ||
        !kbv_tensor_is_contiguous(b))
        return kbv_fail(KBV_ERR_INVALID, "index: a[b] needs contiguous operands and b 1-D "
                        "int64");
    const int64_t rows = a->shape[0], per_row = rows > 0 ? kbv_tensor_numel(a) / rows : 0;
    KBV_TRY(kbv_cuda_check_out(out, b->shape[0] * per_row, a->dtype, "index"));
    return kbv_cuda_launched(kbv_cuda_launch_index_rows(cu->stream, kbv_dtype_size(a->dtype),
                                                        a->data, rows, per_row, b->data,
                                                        b->shape[0], out->data),
                             node);
}
