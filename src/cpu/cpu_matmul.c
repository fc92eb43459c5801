/* matmul, bmm and matmul-shaped einsum, with torch.matmul's semantics:
 * 1-D operands become a row (left) or a column (right) vector and that dim
 * is dropped from the result; batch dims (all but the last two) broadcast.
 * Operands may be strided views (a transpose costs nothing). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_iter.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_matmul_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_matmul_t.h"

/* One operand seen as a batch of matrices. */
typedef struct mm_view {
    int64_t rows, cols, srow, scol;
    kbv_tensor batch; /* leading dims only: shape and strides, data unused */
} mm_view;

static void mm_view_of(const kbv_tensor *t, bool is_left, mm_view *v)
{
    memset(v, 0, sizeof *v);
    if (t->ndim == 1) {
        /* Left: a 1 x K row. Right: a K x 1 column. Unit strides on the
         * missing dim keep the contiguous kernel path usable. */
        v->rows = is_left ? 1 : t->shape[0];
        v->cols = is_left ? t->shape[0] : 1;
        v->srow = is_left ? 1 : t->stride[0];
        v->scol = is_left ? t->stride[0] : 1;
        return;
    }
    int nd = t->ndim;
    v->rows = t->shape[nd - 2];
    v->cols = t->shape[nd - 1];
    v->srow = t->stride[nd - 2];
    v->scol = t->stride[nd - 1];
    v->batch.ndim = nd - 2;
    for (int d = 0; d < nd - 2; d++) {
        v->batch.shape[d] = t->shape[d];
        v->batch.stride[d] = t->stride[d];
    }
}

/* out = matmul(a, b) for float tensors of one dtype. */
static kbv_status matmul_tensors(const kbv_node *node, const kbv_tensor *a, const kbv_tensor *b,
                                 kbv_tensor *out)
{
    const char *op = kbv_cpu_op_name(node);
    if (a->ndim < 1 || b->ndim < 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: 0-dim operand", op);
    mm_view va, vb;
    mm_view_of(a, true, &va);
    mm_view_of(b, false, &vb);
    if (va.cols != vb.rows)
        return kbv_fail(KBV_ERR_INVALID, "%s: inner sizes differ (%lld vs %lld)", op,
                        (long long)va.cols, (long long)vb.rows);

    /* The result's batch dims: broadcast of both operands' batch dims. */
    int nb = va.batch.ndim > vb.batch.ndim ? va.batch.ndim : vb.batch.ndim;
    int expect_ndim = nb + (a->ndim > 1) + (b->ndim > 1);
    if (out->ndim != expect_ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has %d dims, expected %d", op, out->ndim,
                        expect_ndim);
    int64_t M = va.rows, N = vb.cols, K = va.cols;
    if ((a->ndim > 1 && out->shape[nb] != M) || (b->ndim > 1 && out->shape[out->ndim - 1] != N))
        return kbv_fail(KBV_ERR_INVALID, "%s: output matrix shape differs from %lld x %lld", op,
                        (long long)M, (long long)N);
    kbv_tensor out_batch = {.ndim = nb};
    for (int d = 0; d < nb; d++) {
        out_batch.shape[d] = out->shape[d];
        out_batch.stride[d] = out->stride[d];
    }
    int64_t scm = a->ndim > 1 ? out->stride[nb] : 1;
    int64_t scn = b->ndim > 1 ? out->stride[out->ndim - 1] : 1;

    kbv_cpu_iter it;
    const kbv_tensor *ins[2] = {&va.batch, &vb.batch};
    KBV_TRY(kbv_cpu_iter_init(&it, &out_batch, ins, 2));
    /* Packing scratch for a transposed B: the op's own working memory, like
     * a BLAS's packing buffers, outside the allocator's statistics. */
    void *panel = NULL;
    if (vb.scol != 1 && it.outer_count > 0) {
        panel = malloc((size_t)KBV_MM_KB * KBV_MM_JB * kbv_dtype_size(out->dtype));
        if (!panel)
            return kbv_fail(KBV_ERR_NOMEM, "%s: packing buffer", op);
    }
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it)) {
        for (int64_t j = 0; j < it.inner; j++) {
            int64_t oc = it.offset[0] + j * it.inner_stride[0];
            int64_t oa = it.offset[1] + j * it.inner_stride[1];
            int64_t ob = it.offset[2] + j * it.inner_stride[2];
            if (out->dtype == KBV_F32)
                gemm_f32(M, N, K, (const float *)a->data + oa, va.srow, va.scol,
                         (const float *)b->data + ob, vb.srow, vb.scol,
                         (float *)out->data + oc, scm, scn, panel);
            else
                gemm_f64(M, N, K, (const double *)a->data + oa, va.srow, va.scol,
                         (const double *)b->data + ob, vb.srow, vb.scol,
                         (double *)out->data + oc, scm, scn, panel);
        }
    }
    free(panel);
    return KBV_OK;
}

kbv_status kbv_cpu_matmul(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 2, out));
    KBV_TRY(matmul_tensors(node, &args[0], &args[1], out));
    return KBV_OK;
}

/* torch.bmm: both 3-D with the same batch size, no broadcasting. */
kbv_status kbv_cpu_bmm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 2, out));
    if (args[0].ndim != 3 || args[1].ndim != 3 || args[0].shape[0] != args[1].shape[0])
        return kbv_fail(KBV_ERR_INVALID, "bmm: operands must be 3-D with equal batch sizes");
    KBV_TRY(matmul_tensors(node, &args[0], &args[1], out));
    return KBV_OK;
}

/* Whether equation (spaces removed) is exactly what torch.matmul computes
 * for operands of na and nb dims: "<batch>ik,<batch'>kn-><batch>in" with b
 * 2-D or its batch letters the trailing batch letters of a, every letter of
 * the result distinct and the contracted letter absent from it. */
static bool einsum_is_matmul(const char *eq, int na, int nb)
{
    char a[KBV_MAX_DIMS + 1], b[KBV_MAX_DIMS + 1], o[KBV_MAX_DIMS + 1];
    char *parts[3] = {a, b, o};
    int lens[3] = {0, 0, 0}, part = 0;
    for (const char *p = eq; *p; p++) {
        if (*p == ' ')
            continue;
        if (*p == ',' && part == 0) {
            part = 1;
        } else if (p[0] == '-' && p[1] == '>' && part == 1) {
            part = 2;
            p++;
        } else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
            if (lens[part] >= KBV_MAX_DIMS)
                return false;
            parts[part][lens[part]++] = *p;
        } else {
            return false; /* ellipsis, a third operand, anything else */
        }
    }
    if (part != 2 || lens[0] != na || lens[1] != nb || na < 2 || nb < 2 || nb > na ||
        lens[2] != na)
        return false;
    char k = a[na - 1];
    if (b[nb - 2] != k)
        return false;
    for (int d = 0; d < na - 1; d++)
        if (o[d] != a[d])
            return false;
    if (o[na - 1] != b[nb - 1])
        return false;
    for (int d = 0; d < nb - 2; d++)
        if (b[d] != a[na - nb + d])
            return false;
    for (int x = 0; x < na; x++) {
        if (o[x] == k)
            return false;
        for (int y = x + 1; y < na; y++)
            if (o[x] == o[y])
                return false;
    }
    return true;
}

kbv_status kbv_cpu_einsum(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    (void)be;
    KBV_TRY(kbv_cpu_check_float(node, args, 2, out));
    const char *eq = node->def ? node->def->s : NULL;
    if (!eq || !einsum_is_matmul(eq, args[0].ndim, args[1].ndim))
        return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s' on %d-D and %d-D operands is not a "
                        "matmul contraction", eq ? eq : "(none)", args[0].ndim, args[1].ndim);
    KBV_TRY(matmul_tensors(node, &args[0], &args[1], out));
    return KBV_OK;
}

/* F.linear: a @ weight.T (the weight's transposed view, packed by the
 * GEMM), then the bias added to every row, as torch.addmm's result is the
 * product plus the bias. */
kbv_status kbv_cpu_linear(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    (void)be;
    const bool has_bias = node->n_args == 3;
    KBV_TRY(kbv_cpu_check_float(node, args, has_bias ? 3 : 2, out));
    const kbv_tensor *w = &args[1];
    if (w->ndim != 2 || out->ndim < 1 || out->shape[out->ndim - 1] != w->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "linear: the weight is not [N, K] for the output");
    kbv_tensor wt = *w;
    wt.shape[0] = w->shape[1];
    wt.shape[1] = w->shape[0];
    wt.stride[0] = w->stride[1];
    wt.stride[1] = w->stride[0];
    KBV_TRY(matmul_tensors(node, &args[0], &wt, out));
    if (!has_bias)
        return KBV_OK;
    const kbv_tensor *c = &args[2];
    if (c->ndim != 1 || c->shape[0] != w->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "linear: the bias is not [%lld]", (long long)w->shape[0]);
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {c};
    KBV_TRY(kbv_cpu_iter_init(&it, out, ins, 1));
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it))
        for (int64_t j = 0; j < it.inner; j++) {
            int64_t oo = it.offset[0] + j * it.inner_stride[0];
            int64_t oc = it.offset[1] + j * it.inner_stride[1];
            if (out->dtype == KBV_F32)
                ((float *)out->data)[oo] += ((const float *)c->data)[oc];
            else
                ((double *)out->data)[oo] += ((const double *)c->data)[oc];
        }
    return KBV_OK;
}
