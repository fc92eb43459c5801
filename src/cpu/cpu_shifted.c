/* pad and roll on the CPU (graph/ops_shifted.h): one walk over the result
 * in order, each element copied from the operand's shifted coordinate (read
 * through its strides) or set to the pad value. And index, a[b]: the rows
 * b names, copied in order. */
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "graph/ops_shifted.h"

/* The pad value in dtype dt, as its bytes. */
static kbv_status fill_bytes(kbv_dtype dt, double v, unsigned char *bytes)
{
    switch (dt) {
    case KBV_F32: { float x = (float)v; memcpy(bytes, &x, sizeof x); return KBV_OK; }
    case KBV_F64: memcpy(bytes, &v, sizeof v); return KBV_OK;
    case KBV_I32: { int32_t x = (int32_t)v; memcpy(bytes, &x, sizeof x); return KBV_OK; }
    case KBV_I64: { int64_t x = (int64_t)v; memcpy(bytes, &x, sizeof x); return KBV_OK; }
    default:
        return kbv_fail(KBV_ERR_UNSUPPORTED, "pad: no %s fill on the CPU", kbv_dtype_name(dt));
    }
}

kbv_status kbv_cpu_shifted(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    const size_t es = kbv_dtype_size(a->dtype);
    kbv_shift_map m;
    KBV_TRY(kbv_shift_map_of(node->def, a->ndim, a->shape, &m));
    if (out->dtype != a->dtype || out->ndim != a->ndim || es == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: a %s operand for a %s result",
                        kbv_cpu_op_name(node), kbv_dtype_name(a->dtype),
                        kbv_dtype_name(out->dtype));
    for (int d = 0; d < a->ndim; d++)
        if (out->shape[d] != m.out_shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: result dim %d is %lld, the map's %lld",
                            kbv_cpu_op_name(node), d, (long long)out->shape[d],
                            (long long)m.out_shape[d]);
    const int64_t n = kbv_tensor_numel(out);
    if (n == 0)
        return KBV_OK;
    if (!a->data || !out->data)
        return kbv_fail(KBV_ERR_INVALID, "%s: an operand has no memory", kbv_cpu_op_name(node));
    unsigned char fill[8] = {0};
    if (!m.wrap)
        KBV_TRY(fill_bytes(a->dtype, node->def->f[0], fill));
    const unsigned char *src = a->data;
    unsigned char *dst = out->data;
    int64_t coord[KBV_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t from = 0, to = 0;
        bool inside = true;
        for (int d = 0; d < a->ndim; d++) {
            int64_t c = coord[d] - m.offset[d];
            if (m.wrap && c < 0)
                c += a->shape[d];
            inside = inside && c >= 0 && c < a->shape[d];
            from += c * a->stride[d];
            to += coord[d] * out->stride[d];
        }
        memcpy(dst + (size_t)to * es, inside ? src + (size_t)from * es : fill, es);
        for (int d = a->ndim - 1; d >= 0 && ++coord[d] == out->shape[d]; d--)
            coord[d] = 0;
    }
    return KBV_OK;
}

kbv_status kbv_cpu_index(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0], *b = &args[1];
    const size_t es = kbv_dtype_size(a->dtype);
    if (a->ndim < 1 || b->ndim != 1 || b->dtype != KBV_I64 || out->dtype != a->dtype ||
        !kbv_tensor_is_contiguous(a) || !kbv_tensor_is_contiguous(b) ||
        !kbv_tensor_is_contiguous(out) || out->shape[0] != b->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "%s: a[b] needs contiguous operands, b 1-D int64 "
                        "and a result of b's length", kbv_cpu_op_name(node));
    const int64_t rows = a->shape[0], per_row = rows > 0 ? kbv_tensor_numel(a) / rows : 0;
    const int64_t *idx = b->data;
    for (int64_t m = 0; m < b->shape[0]; m++) {
        int64_t r = idx[m] < 0 ? idx[m] + rows : idx[m];
        if (r < 0 || r >= rows)
            return kbv_fail(KBV_ERR_INVALID, "index: index %lld of a dim of %lld",
                            (long long)idx[m], (long long)rows);
        memcpy((char *)out->data + (size_t)(m * per_row) * es,
               (const char *)a->data + (size_t)(r * per_row) * es, (size_t)per_row * es);
    }
    return KBV_OK;
}
