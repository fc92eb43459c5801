/* Layout ops: transpose (a view), diag, triu, tril and clone. */
#include <stdbool.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_iter.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_layout_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_layout_t.h"

/* a.T: the same memory with the dims reversed (for 2-D, rows and columns
 * swapped; 0-D and 1-D tensors are returned as they are, as PyTorch does).
 * out->data and out->stride are set here; nothing is copied. */
kbv_status kbv_cpu_transpose(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    if (out->ndim != a->ndim || out->dtype != a->dtype)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has %d dims of %s, input %d of %s",
                        kbv_cpu_op_name(node), out->ndim, kbv_dtype_name(out->dtype), a->ndim,
                        kbv_dtype_name(a->dtype));
    int nd = a->ndim;
    for (int d = 0; d < nd; d++) {
        if (out->shape[d] != a->shape[nd - 1 - d])
            return kbv_fail(KBV_ERR_INVALID, "%s: output shape is not the input's reversed",
                            kbv_cpu_op_name(node));
        out->stride[d] = a->stride[nd - 1 - d];
    }
    out->data = a->data;
    return KBV_OK;
}

kbv_status kbv_cpu_diag(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    const kbv_tensor *a = &args[0];
    int64_t diag = node->def ? node->def->i[0] : 0;
    int64_t off = diag < 0 ? -diag : diag;
    bool f32 = out->dtype == KBV_F32;
    if (a->ndim == 1) {
        int64_t n = a->shape[0] + off;
        if (out->ndim != 2 || out->shape[0] != n || out->shape[1] != n)
            return kbv_fail(KBV_ERR_INVALID, "diag: a vector of %lld makes a %lld x %lld matrix",
                            (long long)a->shape[0], (long long)n, (long long)n);
        if (f32)
            diag_embed_f32(a->data, a->stride[0], out->data, out->stride[0], out->stride[1], n,
                           diag);
        else
            diag_embed_f64(a->data, a->stride[0], out->data, out->stride[0], out->stride[1], n,
                           diag);
        return KBV_OK;
    }
    if (a->ndim == 2) {
        int64_t rows = a->shape[0], cols = a->shape[1];
        int64_t n = diag >= 0 ? (cols - diag < rows ? cols - diag : rows)
                              : (rows + diag < cols ? rows + diag : cols);
        if (n < 0)
            n = 0;
        if (out->ndim != 1 || out->shape[0] != n)
            return kbv_fail(KBV_ERR_INVALID, "diag: diagonal %lld of %lld x %lld has %lld elements",
                            (long long)diag, (long long)rows, (long long)cols, (long long)n);
        if (f32)
            diag_extract_f32(a->data, a->stride[0], a->stride[1], out->data, out->stride[0], n,
                             diag);
        else
            diag_extract_f64(a->data, a->stride[0], a->stride[1], out->data, out->stride[0], n,
                             diag);
        return KBV_OK;
    }
    return kbv_fail(KBV_ERR_INVALID, "diag: input must be 1-D or 2-D, not %d-D", a->ndim);
}

/* triu / tril on the last two dims (leading dims are a batch), diagonal i[0]. */
kbv_status kbv_cpu_triangle(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    const kbv_tensor *a = &args[0];
    int nd = a->ndim;
    if (nd < 2 || out->ndim != nd)
        return kbv_fail(KBV_ERR_INVALID, "%s: input must be at least 2-D with a same-rank output",
                        kbv_cpu_op_name(node));
    for (int d = 0; d < nd; d++)
        if (out->shape[d] != a->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: input and output shapes differ",
                            kbv_cpu_op_name(node));
    int64_t diag = node->def ? node->def->i[0] : 0;
    bool upper = node->op == KBV_OP_TRIU;
    int64_t R = a->shape[nd - 2], C = a->shape[nd - 1];

    kbv_tensor out_batch = {.ndim = nd - 2}, in_batch = {.ndim = nd - 2};
    for (int d = 0; d < nd - 2; d++) {
        out_batch.shape[d] = in_batch.shape[d] = a->shape[d];
        out_batch.stride[d] = out->stride[d];
        in_batch.stride[d] = a->stride[d];
    }
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {&in_batch};
    KBV_TRY(kbv_cpu_iter_init(&it, &out_batch, ins, 1));
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it)) {
        for (int64_t j = 0; j < it.inner; j++) {
            int64_t oo = it.offset[0] + j * it.inner_stride[0];
            int64_t oa = it.offset[1] + j * it.inner_stride[1];
            if (out->dtype == KBV_F32)
                triangle_f32((const float *)a->data + oa, a->stride[nd - 2], a->stride[nd - 1],
                             (float *)out->data + oo, out->stride[nd - 2], out->stride[nd - 1],
                             R, C, diag, upper);
            else
                triangle_f64((const double *)a->data + oa, a->stride[nd - 2],
                             a->stride[nd - 1], (double *)out->data + oo, out->stride[nd - 2],
                             out->stride[nd - 1], R, C, diag, upper);
        }
    }
    return KBV_OK;
}

/* a.clone(): the values into out's own (contiguous) memory, any dtype. */
kbv_status kbv_cpu_clone(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *a = &args[0];
    size_t es = kbv_dtype_size(a->dtype);
    if (out->dtype != a->dtype || out->ndim != a->ndim || es == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: a %s operand for a %s result",
                        kbv_cpu_op_name(node), kbv_dtype_name(a->dtype),
                        kbv_dtype_name(out->dtype));
    if (kbv_tensor_numel(out) > 0 && (!a->data || !out->data))
        return kbv_fail(KBV_ERR_INVALID, "%s: an operand has no memory", kbv_cpu_op_name(node));
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {a};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 1));
    const unsigned char *src = a->data;
    unsigned char *dst = out->data;
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it))
        for (int64_t j = 0; j < it.inner; j++)
            memcpy(dst + (size_t)(it.offset[0] + j * it.inner_stride[0]) * es,
                   src + (size_t)(it.offset[1] + j * it.inner_stride[1]) * es, es);
    return KBV_OK;
}
