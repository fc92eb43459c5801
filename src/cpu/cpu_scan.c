/* Scans along one dim (cumsum, cumprod) and the layout ops around them in
 * the scan problems: flip (a reversed copy), the zeros column, cat of two
 * tensors, and the [:-1] view. Operands may be strided views; the layout
 * ops copy elements of any dtype. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_lines.h"
#include "exec/stack_as_cat.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_scan_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_scan_t.h"

static kbv_status same_shape(const char *op, const kbv_tensor *a, const kbv_tensor *b)
{
    bool ok = a->ndim == b->ndim;
    for (int d = 0; ok && d < a->ndim; d++)
        ok = a->shape[d] == b->shape[d];
    if (!ok)
        return kbv_fail(KBV_ERR_INVALID, "%s: input and output shapes differ", op);
    return KBV_OK;
}

static kbv_status check_data(const char *op, const kbv_tensor *t)
{
    if (!t->data && kbv_tensor_numel(t) > 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: a tensor without memory", op);
    if (kbv_dtype_size(t->dtype) == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: unknown dtype %d", op, (int)t->dtype);
    return KBV_OK;
}

kbv_status kbv_cpu_scan(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    KBV_TRY(same_shape(op, &args[0], out));
    int dim = 0;
    KBV_TRY(kbv_cpu_resolve_dim(op, &args[0], node->def ? node->def->i[0] : 0, &dim));
    kbv_cpu_lines l;
    const kbv_tensor *ins[1] = {&args[0]};
    KBV_TRY(kbv_cpu_lines_init(&l, out, true, ins, 1, dim));
    bool is_prod = node->op == KBV_OP_CUMPROD;
    if (out->dtype == KBV_F32)
        scan_lines_f32(&l, is_prod, args[0].data, out->data);
    else
        scan_lines_f64(&l, is_prod, args[0].data, out->data);
    return KBV_OK;
}

/* Copies n elements of `size` bytes from x (step sx) to y (step sy). */
static void copy_line(unsigned char *y, int64_t sy, const unsigned char *x, int64_t sx,
                      int64_t n, size_t size)
{
    for (int64_t k = 0; k < n; k++)
        memcpy(y + (size_t)(k * sy) * size, x + (size_t)(k * sx) * size, size);
}

kbv_status kbv_cpu_flip(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *x = &args[0];
    KBV_TRY(check_data("flip", x));
    KBV_TRY(check_data("flip", out));
    if (x->dtype != out->dtype)
        return kbv_fail(KBV_ERR_INVALID, "flip: %s into %s", kbv_dtype_name(x->dtype),
                        kbv_dtype_name(out->dtype));
    KBV_TRY(same_shape("flip", x, out));
    int dim = 0;
    KBV_TRY(kbv_cpu_resolve_dim("flip", x, node->def ? node->def->i[0] : 0, &dim));
    kbv_cpu_lines l;
    const kbv_tensor *ins[1] = {x};
    KBV_TRY(kbv_cpu_lines_init(&l, out, true, ins, 1, dim));
    size_t size = kbv_dtype_size(x->dtype);
    unsigned char *dst = out->data;
    const unsigned char *src = x->data;
    for (int64_t r = 0; r < l.it.outer_count; r++, kbv_cpu_iter_advance(&l.it))
        for (int64_t j = 0; j < l.it.inner; j++) {
            int64_t oo = l.it.offset[0] + j * l.it.inner_stride[0];
            int64_t io = l.it.offset[1] + j * l.it.inner_stride[1];
            /* read the line from its end backwards */
            if (l.len > 0)
                copy_line(dst + (size_t)oo * size, l.step[0],
                          src + (size_t)(io + (l.len - 1) * l.step[1]) * size, -l.step[1], l.len,
                          size);
        }
    return KBV_OK;
}

/* The zeros column only depends on its operand's shape; out is contiguous. */
kbv_status kbv_cpu_zeros_slice(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    (void)be;
    (void)args;
    KBV_TRY(check_data(kbv_cpu_op_name(node), out));
    memset(out->data, 0, (size_t)kbv_tensor_numel(out) * kbv_dtype_size(out->dtype));
    return KBV_OK;
}

kbv_status kbv_cpu_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out)
{
    (void)be;
    int n = node->n_args;
    if (n < 1)
        return kbv_fail(KBV_ERR_INVALID, "cat: no operands");
    int64_t total = 0;
    int dim = 0;
    KBV_TRY(check_data("cat", out));
    KBV_TRY(kbv_cpu_resolve_dim("cat", &args[0], node->def ? node->def->i[0] : 0, &dim));
    for (int k = 0; k < n; k++) {
        KBV_TRY(check_data("cat", &args[k]));
        if (args[k].dtype != out->dtype)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "cat: operand %d is %s, output %s", k,
                            kbv_dtype_name(args[k].dtype), kbv_dtype_name(out->dtype));
        if (args[k].ndim != out->ndim)
            return kbv_fail(KBV_ERR_INVALID, "cat: operand %d has %d dims, the output %d", k,
                            args[k].ndim, out->ndim);
        total += args[k].shape[dim];
    }
    if (out->shape[dim] != total)
        return kbv_fail(KBV_ERR_INVALID, "cat: output extent %lld along dim %d, operands %lld",
                        (long long)out->shape[dim], dim, (long long)total);
    /* each operand's lines go to its slice of out's lines, one operand at a time */
    size_t size = kbv_dtype_size(out->dtype);
    unsigned char *dst = out->data;
    int64_t at = 0;
    for (int k = 0; k < n; k++) {
        const kbv_tensor *a = &args[k];
        kbv_cpu_lines l;
        const kbv_tensor *ins[1] = {a};
        KBV_TRY(kbv_cpu_lines_init(&l, out, true, ins, 1, dim));
        const unsigned char *src = a->data;
        int64_t len = a->shape[dim];
        for (int64_t r = 0; r < l.it.outer_count; r++, kbv_cpu_iter_advance(&l.it))
            for (int64_t j = 0; j < l.it.inner; j++) {
                int64_t oo = l.it.offset[0] + j * l.it.inner_stride[0];
                int64_t ao = l.it.offset[1] + j * l.it.inner_stride[1];
                copy_line(dst + (size_t)(oo + at * l.step[0]) * size, l.step[0],
                          src + (size_t)ao * size, a->stride[dim], len, size);
            }
        at += len;
    }
    return KBV_OK;
}

/* torch.stack: the cat of the operands, each viewed with a size-1 dim at
 * the stack's dim (unsqueeze), along that dim. */
kbv_status kbv_cpu_stack(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    int n = node->n_args;
    if (n < 1 || out->ndim < 1 || out->ndim != args[0].ndim + 1)
        return kbv_fail(KBV_ERR_INVALID, "stack: %d operands of %d dims for a %d-dim result", n,
                        n > 0 ? args[0].ndim : 0, out->ndim);
    int dim = 0;
    KBV_TRY(kbv_cpu_resolve_dim("stack", out, node->def ? node->def->i[0] : 0, &dim));
    return kbv_stack_as_cat(be, node, args, out, dim, kbv_cpu_cat);
}

/* a[:-1]: the same memory and strides, one index fewer along dim 0. */
kbv_status kbv_cpu_drop_last(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    (void)be;
    (void)node;
    const kbv_tensor *a = &args[0];
    if (a->ndim < 1 || out->ndim != a->ndim || a->dtype != out->dtype)
        return kbv_fail(KBV_ERR_INVALID, "[:-1]: a %d-dim %s operand for a %d-dim %s output",
                        a->ndim, kbv_dtype_name(a->dtype), out->ndim, kbv_dtype_name(out->dtype));
    out->data = a->data;
    for (int d = 0; d < a->ndim; d++)
        out->stride[d] = a->stride[d];
    return KBV_OK;
}
