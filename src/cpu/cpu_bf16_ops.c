/* The CPU backend's ops on bfloat16 tensors (the bf16 mode): every op runs
 * as its float32 kernel on the operands widened to float32, and its result
 * is rounded to bfloat16 once. That is how PyTorch's CPU kernels compute a
 * bf16 op: in float (the opmath type), GEMMs, convolutions, reductions,
 * scans and norms accumulating in float, the output written as bf16 -- so
 * between ops, as in PyTorch eager, every intermediate tensor is bf16.
 * Views (a.T, a[:-1]) alias their operand and run as they are; integer and
 * bool operands (class indices, masks) and float32 ones (a Python number
 * given to forward()) are passed unchanged.
 *
 * The float32 copies are scratch of this file, outside the backend's
 * allocator: PyTorch's bf16 kernels hold no such copies, so the baseline's
 * peak counts the bf16 tensors alone, as torch's would. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "core/bf16.h"
#include "graph/ops_table.h"

/* Element offset of linear (row-major) index i of t under its strides. */
static int64_t offset_of(const kbv_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t len = t->shape[d] > 0 ? t->shape[d] : 1;
        off += (i % len) * t->stride[d];
        i /= len;
    }
    return off;
}

/* A contiguous float32 tensor of t's shape, holding t's values widened. */
static kbv_status widen(const kbv_tensor *t, kbv_tensor *wide)
{
    int64_t n = kbv_tensor_numel(t);
    *wide = *t;
    wide->dtype = KBV_F32;
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        wide->stride[d] = s;
        s *= t->shape[d];
    }
    float *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!w)
        return kbv_fail(KBV_ERR_NOMEM, "cpu bf16: %lld float32 elements", (long long)n);
    const uint16_t *src = t->data;
    for (int64_t i = 0; i < n; i++)
        w[i] = kbv_bf16_to_float(src[offset_of(t, i)]);
    wide->data = w;
    return KBV_OK;
}

kbv_status kbv_cpu_bf16_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    if ((unsigned)node->op >= KBV_OP_COUNT || node->n_args < 0)
        return kbv_fail(KBV_ERR_INTERNAL, "cpu bf16: node with op %d and %d operands",
                        (int)node->op, node->n_args);
    kbv_op_fn f32 = kbv_cpu_f32_ops()[node->op];
    if (!f32)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "op '%s' is not implemented on the CPU",
                        kbv_cpu_op_name(node));
    if (kbv_op_table[node->op].is_view)
        return f32(be, node, args, out);

    kbv_status st = KBV_OK;
    kbv_tensor res = *out;
    float *res_data = NULL;
    size_t n_wide = (size_t)node->n_args + 1;
    kbv_tensor *wide = calloc(n_wide, sizeof *wide);
    bool *owned = calloc(n_wide, sizeof *owned);
    if (!wide || !owned)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "cpu bf16: %d operands", node->n_args);
    for (int a = 0; a < node->n_args; a++) {
        wide[a] = args[a];
        if (args[a].dtype != KBV_BF16)
            continue;
        if (!args[a].data && kbv_tensor_numel(&args[a]) > 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s: operand %d has no memory",
                          kbv_cpu_op_name(node), a);
        KBV_TRY_GOTO(widen(&args[a], &wide[a]), st, done);
        owned[a] = true;
    }
    const int64_t n = kbv_tensor_numel(out);
    if (out->dtype == KBV_BF16) {
        if (!out->data && n > 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s: output has no memory",
                          kbv_cpu_op_name(node));
        res_data = malloc((size_t)(n > 0 ? n : 1) * sizeof *res_data);
        if (!res_data)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "cpu bf16: %lld float32 elements",
                          (long long)n);
        res.dtype = KBV_F32;
        res.data = res_data;
        int64_t s = 1;
        for (int d = out->ndim - 1; d >= 0; d--) {
            res.stride[d] = s;
            s *= out->shape[d];
        }
    }
    KBV_TRY_GOTO(f32(be, node, wide, &res), st, done);
    if (res_data) {
        uint16_t *dst = out->data;
        for (int64_t i = 0; i < n; i++)
            dst[offset_of(out, i)] = kbv_bf16_from_float(res_data[i]);
    }
done:
    for (int a = 0; owned && a < node->n_args; a++)
        if (owned[a])
            free(wide[a].data);
    free(wide);
    free(owned);
    free(res_data);
    return st;
}
