/* The op table: one row per kbv_op with its PyTorch shape rule, FLOP count
 * and PyTorch rendering. Shape rules follow PyTorch exactly (broadcasting,
 * 1-D matmul cases, negative dims) and fail with a message that names the
 * op and the operands' shapes; graph.c adds the problem and node. */
#include "graph/ops_table.h"
#include "graph/ops_conv.h"
#include "graph/ops_einsum.h"
#include "graph/ops_rnn.h"
#include "graph/ops_rules.h"
#include "graph/ops_shifted.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers */

const char *kbv_value_describe(const kbv_value *v, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "%s[", v->name ? v->name : "?");
    for (int d = 0; d < v->ndim && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", d ? "," : "",
                                 (long long)v->shape[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
    return buf;
}

/* Rank within a category: the wider type wins promotion. */
static int float_rank(kbv_dtype dt)
{
    return dt == KBV_F64 ? 3 : dt == KBV_F32 ? 2 : 1;
}

static int int_rank(kbv_dtype dt)
{
    return dt == KBV_I64 ? 3 : dt == KBV_I32 ? 2 : 1;
}

/* PyTorch's result type of a binary op: floats beat integers; within one
 * category the wider type wins, except that a 0-dim operand does not widen a
 * dimensioned one; an integer tensor meeting a float 0-dim operand becomes
 * the default float dtype. */
static kbv_dtype promote(const kbv_value *a, const kbv_value *b)
{
    bool fa = kbv_dtype_is_float(a->dtype), fb = kbv_dtype_is_float(b->dtype);
    if (fa != fb) {
        const kbv_value *f = fa ? a : b, *other = fa ? b : a;
        if (f->ndim == 0 && other->ndim > 0)
            return KBV_F32;
        return f->dtype;
    }
    if (a->ndim == 0 && b->ndim > 0)
        return b->dtype;
    if (b->ndim == 0 && a->ndim > 0)
        return a->dtype;
    if (fa) {
        if ((a->dtype == KBV_F16 && b->dtype == KBV_BF16) ||
            (a->dtype == KBV_BF16 && b->dtype == KBV_F16))
            return KBV_F32;
        return float_rank(a->dtype) >= float_rank(b->dtype) ? a->dtype : b->dtype;
    }
    return int_rank(a->dtype) >= int_rank(b->dtype) ? a->dtype : b->dtype;
}

/* Functions such as sigmoid turn integer tensors into the default float. */
static kbv_dtype float_result(kbv_dtype dt)
{
    return kbv_dtype_is_float(dt) ? dt : KBV_F32;
}

static void copy_shape(kbv_value *out, const kbv_value *in)
{
    out->ndim = in->ndim;
    memcpy(out->shape, in->shape, sizeof out->shape);
}

static double numel(const kbv_value *v)
{
    double n = 1.0;
    for (int d = 0; d < v->ndim; d++)
        n *= (double)v->shape[d];
    return n;
}

static double out_numel(const kbv_graph *g, const kbv_node *n)
{
    return numel(&g->values[n->out]);
}

/* Right-aligned broadcasting of two batch shapes into out (PyTorch rules). */
static kbv_status broadcast(const char *op, const int64_t *a, int na, const int64_t *b, int nb,
                            int64_t *out, int *nout)
{
    int n = na > nb ? na : nb;
    for (int d = 0; d < n; d++) {
        int ia = na - n + d, ib = nb - n + d;
        int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
        if (x != y && x != 1 && y != 1)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: sizes %lld and %lld do not broadcast (dim %d from the right)",
                            op, (long long)x, (long long)y, n - d);
        out[d] = x == 1 ? y : x;
    }
    *nout = n;
    return KBV_OK;
}

/* ------------------------------------------------------------- shape rules */

/* torch.matmul: 1-D operands get a dim prepended (first) or appended
 * (second) that is removed again; dims before the last two broadcast. */
static kbv_status shape_matmul(const kbv_node_def *n, const kbv_value *const *args,
                               kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    if (a->ndim == 0 || b->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "matmul: both operands need at least 1 dim, got %s and %s",
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db));
    int64_t ka = a->shape[a->ndim - 1];
    int64_t kb = b->ndim >= 2 ? b->shape[b->ndim - 2] : b->shape[0];
    if (ka != kb)
        return kbv_fail(KBV_ERR_INVALID, "matmul: inner sizes differ (%lld vs %lld): %s x %s",
                        (long long)ka, (long long)kb, kbv_value_describe(a, da, sizeof da),
                        kbv_value_describe(b, db, sizeof db));
    int batch_a = a->ndim > 2 ? a->ndim - 2 : 0, batch_b = b->ndim > 2 ? b->ndim - 2 : 0;
    int64_t shape[2 * KBV_MAX_DIMS];
    int nd = 0;
    KBV_TRY(broadcast("matmul", a->shape, batch_a, b->shape, batch_b, shape, &nd));
    if (a->ndim >= 2)
        shape[nd++] = a->shape[a->ndim - 2];
    if (b->ndim >= 2)
        shape[nd++] = b->shape[b->ndim - 1];
    if (nd > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "matmul: result has %d dims, more than %d", nd,
                        KBV_MAX_DIMS);
    out->dtype = promote(a, b);
    out->ndim = nd;
    memcpy(out->shape, shape, sizeof(int64_t) * (size_t)nd);
    return KBV_OK;
}

/* torch.bmm: [b, m, k] x [b, k, n] -> [b, m, n], no broadcasting. */
static kbv_status shape_bmm(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    if (a->ndim != 3 || b->ndim != 3)
        return kbv_fail(KBV_ERR_INVALID, "bmm: both operands must be 3-D, got %s and %s",
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db));
    if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return kbv_fail(KBV_ERR_INVALID, "bmm: shapes do not match: %s x %s",
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db));
    out->dtype = promote(a, b);
    out->ndim = 3;
    out->shape[0] = a->shape[0];
    out->shape[1] = a->shape[1];
    out->shape[2] = b->shape[2];
    return KBV_OK;
}

static bool is_label(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* torch.einsum for the equations that are one matmul: "<P>c,ck-><P>k" with
 * every label distinct, i.e. an N-D operand contracted on its last dim with
 * a 2-D operand ("bijl,lk->bijk"). Anything else is rejected. */
static kbv_status shape_einsum(const kbv_node_def *n, const kbv_value *const *args,
                               kbv_value *out)
{
    const char *eq = n->s;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    if (!eq)
        return kbv_fail(KBV_ERR_INVALID, "einsum: the equation (attribute s) is missing");
    const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
    if (!comma || !arrow || arrow < comma)
        return kbv_fail(KBV_ERR_INVALID, "einsum: '%s' is not of the form \"xy,yz->xz\"", eq);
    size_t la = (size_t)(comma - eq), lb = (size_t)(arrow - comma - 1);
    const char *lhs_b = comma + 1, *res = arrow + 2;
    size_t lr = strlen(res);
    bool labels_ok = true;
    for (const char *p = eq; *p; p++)
        if (p != comma && !(p >= arrow && p < arrow + 2) && !is_label(*p))
            labels_ok = false;
    char seen[128] = {0};
    for (size_t i = 0; i < la && labels_ok; i++)
        labels_ok = !seen[(unsigned char)eq[i]]++;
    if (!labels_ok || la < 1 || lb != 2 || lr != la || lhs_b[0] != eq[la - 1] ||
        seen[(unsigned char)lhs_b[1]] || memcmp(res, eq, la - 1) != 0 || res[la - 1] != lhs_b[1])
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "einsum: '%s' is not a single matmul; supported: \"<P>c,ck-><P>k\" with "
                        "distinct labels, e.g. \"bijl,lk->bijk\"",
                        eq);
    if ((size_t)a->ndim != la || b->ndim != 2)
        return kbv_fail(KBV_ERR_INVALID, "einsum '%s': operands %s and %s do not have %zu and 2 dims",
                        eq, kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db), la);
    if (a->shape[a->ndim - 1] != b->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "einsum '%s': contracted sizes differ: %s and %s", eq,
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db));
    out->dtype = promote(a, b);
    copy_shape(out, a);
    out->shape[out->ndim - 1] = b->shape[1];
    return KBV_OK;
}

/* a.T of a 2-D tensor: a view with the two dims swapped. */
static kbv_status shape_transpose(const kbv_node_def *n, const kbv_value *const *args,
                                  kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim != 2)
        return kbv_fail(KBV_ERR_INVALID, "transpose (.T): operand must be 2-D, got %s",
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    out->ndim = 2;
    out->shape[0] = a->shape[1];
    out->shape[1] = a->shape[0];
    return KBV_OK;
}

/* torch.diag of a 1-D tensor: the n x n matrix with it on the diagonal. */
static kbv_status shape_diag(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim != 1)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "diag: only a 1-D operand is supported, got %s",
                        kbv_value_describe(a, da, sizeof da));
    if (n->i[0] != 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "diag: only diagonal 0 is supported, got %lld",
                        (long long)n->i[0]);
    out->dtype = a->dtype;
    out->ndim = 2;
    out->shape[0] = out->shape[1] = a->shape[0];
    return KBV_OK;
}

/* torch.triu / torch.tril: at least 2-D, same shape. */
static kbv_status shape_triangle(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "triu/tril: operand needs at least 2 dims, got %s",
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

static kbv_status shape_binary(const char *op, const kbv_value *const *args, kbv_value *out,
                               bool true_division)
{
    const kbv_value *a = args[0], *b = args[1];
    int nd = 0;
    int64_t shape[KBV_MAX_DIMS];
    char da[160], db[160];
    if (broadcast(op, a->shape, a->ndim, b->shape, b->ndim, shape, &nd) != KBV_OK)
        return kbv_fail(KBV_ERR_INVALID, "%s: shapes do not broadcast: %s and %s", op,
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db));
    kbv_dtype dt = promote(a, b);
    out->dtype = true_division ? float_result(dt) : dt;
    out->ndim = nd;
    memcpy(out->shape, shape, sizeof(int64_t) * (size_t)nd);
    return KBV_OK;
}

static kbv_status shape_add(const kbv_node_def *n, const kbv_value *const *a, kbv_value *o)
{
    (void)n;
    return shape_binary("add", a, o, false);
}

static kbv_status shape_sub(const kbv_node_def *n, const kbv_value *const *a, kbv_value *o)
{
    (void)n;
    return shape_binary("sub", a, o, false);
}

static kbv_status shape_mul(const kbv_node_def *n, const kbv_value *const *a, kbv_value *o)
{
    (void)n;
    return shape_binary("mul", a, o, false);
}

static kbv_status shape_div(const kbv_node_def *n, const kbv_value *const *a, kbv_value *o)
{
    (void)n;
    return shape_binary("div", a, o, true);
}

/* With a Python float constant: integer tensors become the default float. */
static kbv_status shape_scalar(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    (void)n;
    out->dtype = float_result(args[0]->dtype);
    copy_shape(out, args[0]);
    return KBV_OK;
}

/* abs and relu keep the dtype (they are defined on integers too). */
static kbv_status shape_same(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    (void)n;
    out->dtype = args[0]->dtype;
    copy_shape(out, args[0]);
    return KBV_OK;
}

/* Transcendental activations: float result. */
static kbv_status shape_float_unary(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out)
{
    (void)n;
    out->dtype = float_result(args[0]->dtype);
    copy_shape(out, args[0]);
    return KBV_OK;
}

static kbv_status shape_hardtanh(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out)
{
    if (n->f[0] > n->f[1])
        return kbv_fail(KBV_ERR_INVALID, "hardtanh: min_val %g is above max_val %g", n->f[0],
                        n->f[1]);
    return shape_same(n, args, out);
}

/* softmax / log_softmax along i[0]; negative dims count from the end and a
 * 0-dim tensor accepts dim 0 or -1, as in PyTorch. */
static kbv_status shape_softmax(const kbv_node_def *n, const kbv_value *const *args,
                                kbv_value *out)
{
    const kbv_value *a = args[0];
    int64_t rank = a->ndim > 0 ? a->ndim : 1;
    char da[160];
    if (n->i[0] < -rank || n->i[0] >= rank)
        return kbv_fail(KBV_ERR_INVALID, "softmax: dim %lld is out of range for %s",
                        (long long)n->i[0], kbv_value_describe(a, da, sizeof da));
    out->dtype = float_result(a->dtype);
    copy_shape(out, a);
    return KBV_OK;
}

/* F.normalize: a float tensor of a's shape; the dim must exist (a 0-dim
 * tensor has none to normalise along, as PyTorch's norm over dim 0 of a
 * scalar is the scalar's own absolute value: kept out). */
static kbv_status shape_normalize(const kbv_node_def *n, const kbv_value *const *args,
                                  kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    if (!kbv_dtype_is_float(a->dtype) || a->ndim == 0 || kbv_wrap_dim(n->i[0], a->ndim) < 0)
        return kbv_fail(KBV_ERR_INVALID, "normalize: dim %lld of %s (a float tensor of 1 dim "
                        "or more)", (long long)n->i[0], kbv_value_describe(a, da, sizeof da));
    if (!(n->f[0] > 0.0))
        return kbv_fail(KBV_ERR_INVALID, "normalize: eps %g is not positive", n->f[0]);
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

/* segsum's mask: bool [T, T], T the operand's last size. */
static kbv_status shape_segsum_mask(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out)
{
    (void)n;
    char da[160];
    if (args[0]->ndim < 1)
        return kbv_fail(KBV_ERR_INVALID, "segsum_mask: %s has no last dim",
                        kbv_value_describe(args[0], da, sizeof da));
    out->dtype = KBV_BOOL;
    out->ndim = 2;
    out->shape[0] = out->shape[1] = args[0]->shape[args[0]->ndim - 1];
    return KBV_OK;
}

/* ------------------------------------------------------------------- FLOPs */

/* Matmul-like ops: 2 * (output elements) * (contracted size). The
 * contracted size is the last dim of the first operand in every case. */
static double flops_contraction(const kbv_graph *g, const kbv_node *n)
{
    const kbv_value *a = &g->values[n->args[0]];
    return 2.0 * out_numel(g, n) * (double)a->shape[a->ndim - 1];
}

static double flops_none(const kbv_graph *g, const kbv_node *n)
{
    (void)g;
    (void)n;
    return 0.0;
}

static double flops_1(const kbv_graph *g, const kbv_node *n) { return out_numel(g, n); }
static double flops_2(const kbv_graph *g, const kbv_node *n) { return 2.0 * out_numel(g, n); }
static double flops_3(const kbv_graph *g, const kbv_node *n) { return 3.0 * out_numel(g, n); }
static double flops_4(const kbv_graph *g, const kbv_node *n) { return 4.0 * out_numel(g, n); }
static double flops_5(const kbv_graph *g, const kbv_node *n) { return 5.0 * out_numel(g, n); }
static double flops_6(const kbv_graph *g, const kbv_node *n) { return 6.0 * out_numel(g, n); }
static double flops_8(const kbv_graph *g, const kbv_node *n) { return 8.0 * out_numel(g, n); }
static double flops_9(const kbv_graph *g, const kbv_node *n) { return 9.0 * out_numel(g, n); }

/* ------------- normalisation, reduction, scan, loss and attention ops */

/* A dim attribute resolved against a's rank (negative counts from the end). */
static kbv_status resolve_dim(const char *op, const kbv_value *a, int64_t dim, int *out)
{
    char da[160];
    if (a->ndim == 0 || dim < -a->ndim || dim >= a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %s", op,
                        (long long)dim, kbv_value_describe(a, da, sizeof da));
    *out = (int)(dim < 0 ? dim + a->ndim : dim);
    return KBV_OK;
}

static bool same_shape(const kbv_value *a, const kbv_value *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return true;
}

static kbv_status need_float(const char *op, const kbv_value *a)
{
    char da[160];
    if (!kbv_dtype_is_float(a->dtype))
        return kbv_fail(KBV_ERR_INVALID, "%s: %s must be a float tensor, it is %s", op,
                        kbv_value_describe(a, da, sizeof da), kbv_dtype_name(a->dtype));
    return KBV_OK;
}

/* Weight and bias of a per-channel affine: 1-D of the channel count. */
static kbv_status check_affine(const char *op, const kbv_value *w, const kbv_value *b,
                               int64_t channels)
{
    char dw[160], db[160];
    if (w->ndim != 1 || b->ndim != 1 || w->shape[0] != channels || b->shape[0] != channels)
        return kbv_fail(KBV_ERR_INVALID, "%s: weight %s and bias %s must both be [%lld]", op,
                        kbv_value_describe(w, dw, sizeof dw), kbv_value_describe(b, db, sizeof db),
                        (long long)channels);
    return KBV_OK;
}

static kbv_status shape_batch_norm(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0];
    char da[160];
    KBV_TRY(need_float("batch_norm", a));
    if (a->ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "batch_norm: input needs at least 2 dims, got %s",
                        kbv_value_describe(a, da, sizeof da));
    KBV_TRY(check_affine("batch_norm", args[1], args[2], a->shape[1]));
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

static kbv_status shape_instance_norm(const kbv_node_def *n, const kbv_value *const *args,
                                      kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0];
    char da[160];
    KBV_TRY(need_float("instance_norm", a));
    if (a->ndim < 3)
        return kbv_fail(KBV_ERR_INVALID, "instance_norm: input needs at least 3 dims, got %s",
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

static kbv_status shape_group_norm(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    KBV_TRY(need_float("group_norm", a));
    if (a->ndim < 2 || n->i[0] <= 0 || a->shape[1] % n->i[0] != 0)
        return kbv_fail(KBV_ERR_INVALID,
                        "group_norm: %s needs at least 2 dims and channels divisible by %lld "
                        "groups",
                        kbv_value_describe(a, da, sizeof da), (long long)n->i[0]);
    KBV_TRY(check_affine("group_norm", args[1], args[2], a->shape[1]));
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

/* layer_norm over the trailing dims that the weight's shape names. */
static kbv_status shape_layer_norm(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0], *w = args[1], *b = args[2];
    char da[160], dw[160], db[160];
    KBV_TRY(need_float("layer_norm", a));
    bool ok = w->ndim >= 1 && w->ndim <= a->ndim && same_shape(w, b);
    for (int d = 0; ok && d < w->ndim; d++)
        ok = w->shape[d] == a->shape[a->ndim - w->ndim + d];
    if (!ok)
        return kbv_fail(KBV_ERR_INVALID,
                        "layer_norm: weight %s and bias %s must equal the trailing dims of %s",
                        kbv_value_describe(w, dw, sizeof dw), kbv_value_describe(b, db, sizeof db),
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    copy_shape(out, a);
    return KBV_OK;
}

/* Along dim i[0], keepdim i[1]: the dim becomes 1 or disappears. */
static kbv_status reduce_shape(const char *op, const kbv_node_def *n, const kbv_value *a,
                               kbv_dtype dtype, kbv_value *out)
{
    int dim = 0;
    KBV_TRY(resolve_dim(op, a, n->i[0], &dim));
    if (n->i[1] != 0 && n->i[1] != 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: keepdim is 0 or 1, got %lld", op,
                        (long long)n->i[1]);
    if (a->shape[dim] == 0 && n->op != KBV_OP_SUM && n->op != KBV_OP_NORM_DIM)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %d has no elements", op, dim);
    out->dtype = dtype;
    out->ndim = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (d == dim && !n->i[1])
            continue;
        out->shape[out->ndim++] = d == dim ? 1 : a->shape[d];
    }
    return KBV_OK;
}

static kbv_status shape_reduce_float(const kbv_node_def *n, const kbv_value *const *args,
                                     kbv_value *out)
{
    const char *op = kbv_op_table[n->op].name;
    KBV_TRY(need_float(op, args[0]));
    return reduce_shape(op, n, args[0], args[0]->dtype, out);
}

static kbv_status shape_reduce_index(const kbv_node_def *n, const kbv_value *const *args,
                                     kbv_value *out)
{
    const char *op = kbv_op_table[n->op].name;
    KBV_TRY(need_float(op, args[0]));
    return reduce_shape(op, n, args[0], KBV_I64, out);
}

static kbv_status shape_reduce_all(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    KBV_TRY(need_float(kbv_op_table[n->op].name, args[0]));
    out->dtype = args[0]->dtype;
    out->ndim = 0;
    return KBV_OK;
}

static kbv_status shape_pow_scalar(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    KBV_TRY(need_float("pow", args[0]));
    return shape_scalar(n, args, out);
}

/* a * bool mask: the mask broadcasts and takes a's dtype. */
static kbv_status shape_mul_mask(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out)
{
    char db[160];
    if (args[1]->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "mul_mask: the mask %s must be bool, it is %s",
                        kbv_value_describe(args[1], db, sizeof db), kbv_dtype_name(args[1]->dtype));
    KBV_TRY(need_float("mul_mask", args[0]));
    KBV_TRY(shape_binary("mul_mask", args, out, false));
    (void)n;
    out->dtype = args[0]->dtype;
    return KBV_OK;
}

/* a.masked_fill(mask, value): a bool mask broadcast to a's shape, which the
 * result keeps (PyTorch refuses a mask that would widen a). */
static kbv_status shape_masked_fill(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out)
{
    char da[160], db[160];
    if (args[1]->dtype != KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "masked_fill: the mask %s must be bool, it is %s",
                        kbv_value_describe(args[1], db, sizeof db), kbv_dtype_name(args[1]->dtype));
    KBV_TRY(need_float("masked_fill", args[0]));
    KBV_TRY(shape_binary("masked_fill", args, out, false));
    if (!same_shape(out, args[0]))
        return kbv_fail(KBV_ERR_INVALID, "masked_fill: the mask %s does not broadcast to %s",
                        kbv_value_describe(args[1], db, sizeof db),
                        kbv_value_describe(args[0], da, sizeof da));
    (void)n;
    out->dtype = args[0]->dtype;
    return KBV_OK;
}

/* a == value: a bool of a's shape. */
static kbv_status shape_eq_scalar(const kbv_node_def *n, const kbv_value *const *args,
                                  kbv_value *out)
{
    (void)n;
    KBV_TRY(need_float("eq_scalar", args[0]));
    copy_shape(out, args[0]);
    out->dtype = KBV_BOOL;
    return KBV_OK;
}

/* Same shape along dim i[0]; cumsum/cumprod of integers give int64. */
static kbv_status shape_scan(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out)
{
    int dim = 0;
    KBV_TRY(resolve_dim(kbv_op_table[n->op].name, args[0], n->i[0], &dim));
    out->dtype = kbv_dtype_is_float(args[0]->dtype) || n->op == KBV_OP_FLIP ? args[0]->dtype : KBV_I64;
    copy_shape(out, args[0]);
    return KBV_OK;
}

static kbv_status shape_zeros_slice(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out)
{
    int dim = 0;
    KBV_TRY(resolve_dim("zeros_slice", args[0], n->i[0], &dim));
    out->dtype = args[0]->dtype;
    copy_shape(out, args[0]);
    out->shape[dim] = 1;
    return KBV_OK;
}

static kbv_status shape_cat(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160], db[160];
    int dim = 0;
    KBV_TRY(resolve_dim("cat", a, n->i[0], &dim));
    out->dtype = a->dtype;
    copy_shape(out, a);
    for (int k = 1; k < n->n_args; k++) {
        const kbv_value *b = args[k];
        bool ok = a->ndim == b->ndim && a->dtype == b->dtype;
        for (int d = 0; ok && d < a->ndim; d++)
            ok = d == dim || a->shape[d] == b->shape[d];
        if (!ok)
            return kbv_fail(KBV_ERR_INVALID, "cat: %s and %s differ outside dim %d",
                            kbv_value_describe(a, da, sizeof da),
                            kbv_value_describe(b, db, sizeof db), dim);
        out->shape[dim] += b->shape[dim];
    }
    return KBV_OK;
}

static kbv_status shape_drop_last(const kbv_node_def *n, const kbv_value *const *args,
                                  kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "[:-1]: cannot slice the 0-dim %s",
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    copy_shape(out, a);
    if (out->shape[0] > 0)
        out->shape[0]--;
    return KBV_OK;
}

static kbv_status shape_cross_entropy(const kbv_node_def *n, const kbv_value *const *args,
                                      kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    KBV_TRY(need_float("cross_entropy", a));
    if (a->ndim != 2 || b->ndim != 1 || b->dtype != KBV_I64 || b->shape[0] != a->shape[0] ||
        a->shape[1] == 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "cross_entropy: supported are [N, C] logits with [N] int64 class "
                        "indices, got %s (%s) and %s (%s)",
                        kbv_value_describe(a, da, sizeof da), kbv_dtype_name(a->dtype),
                        kbv_value_describe(b, db, sizeof db), kbv_dtype_name(b->dtype));
    out->dtype = a->dtype;
    out->ndim = 0;
    return KBV_OK;
}

/* Elementwise losses of two same-shaped float tensors, reduced to 0-dim. */
static kbv_status shape_pair_loss(const kbv_node_def *n, const kbv_value *const *args,
                                  kbv_value *out)
{
    const char *op = kbv_op_table[n->op].name;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    KBV_TRY(need_float(op, a));
    KBV_TRY(need_float(op, b));
    if (!same_shape(a, b) || (n->op == KBV_OP_KL_DIV && a->ndim == 0))
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operands %s and %s must have one shape%s", op,
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(b, db, sizeof db),
                        n->op == KBV_OP_KL_DIV ? " of at least 1 dim" : "");
    if (n->op == KBV_OP_SMOOTH_L1 && !(n->f[0] > 0.0))
        return kbv_fail(KBV_ERR_UNSUPPORTED, "smooth_l1_loss: beta %g must be positive",
                        n->f[0]);
    out->dtype = promote(a, b);
    out->ndim = 0;
    return KBV_OK;
}

static kbv_status shape_triplet(const kbv_node_def *n, const kbv_value *const *args,
                                kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160], db[160], dc[160];
    for (int k = 0; k < 3; k++)
        KBV_TRY(need_float("triplet_margin_loss", args[k]));
    if (a->ndim != 2 || !same_shape(a, args[1]) || !same_shape(a, args[2]))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "triplet_margin_loss: supported are three [N, D] tensors, got %s, %s, %s",
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(args[1], db, sizeof db),
                        kbv_value_describe(args[2], dc, sizeof dc));
    if (n->f[1] != 2.0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "triplet_margin_loss: only p=2 is supported, got %g",
                        n->f[1]);
    out->dtype = a->dtype;
    out->ndim = 0;
    return KBV_OK;
}

/* [..., L, E] x [..., S, E] x [..., S, Ev] -> [..., L, Ev], equal batch dims. */
static kbv_status shape_sdpa(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *q = args[0], *k = args[1], *v = args[2];
    char dq[160], dk[160], dv[160];
    int nd = q->ndim;
    bool ok = nd >= 2 && k->ndim == nd && v->ndim == nd && q->dtype == k->dtype &&
              q->dtype == v->dtype && kbv_dtype_is_float(q->dtype);
    for (int d = 0; ok && d < nd - 2; d++)
        ok = q->shape[d] == k->shape[d] && q->shape[d] == v->shape[d];
    ok = ok && q->shape[nd - 1] == k->shape[nd - 1] && k->shape[nd - 2] == v->shape[nd - 2] &&
         q->shape[nd - 1] > 0 && k->shape[nd - 2] > 0;
    if (!ok)
        return kbv_fail(KBV_ERR_INVALID,
                        "scaled_dot_product_attention: %s, %s, %s are not [..., L, E], "
                        "[..., S, E], [..., S, Ev] of one float dtype",
                        kbv_value_describe(q, dq, sizeof dq), kbv_value_describe(k, dk, sizeof dk),
                        kbv_value_describe(v, dv, sizeof dv));
    if ((n->i[0] != 0) != (q->dtype == KBV_F16))
        return kbv_fail(KBV_ERR_INVALID,
                        "scaled_dot_product_attention: i[0] must be 1 exactly when the operands "
                        "are float16 (they are %s)",
                        kbv_dtype_name(q->dtype));
    out->dtype = q->dtype;
    copy_shape(out, q);
    out->shape[nd - 1] = v->shape[nd - 1];
    return KBV_OK;
}

/* Nominal FLOPs: batch, group and layer norm 7 per element (sum, squared
 * deviation 2, subtract, scale by 1/std, affine 2); instance norm 5 (no
 * affine); reductions 1 per input element, norms 2 (square, add); pow 1
 * (x*x) or 2 (x*x*x, PyTorch's special case for 3); cross entropy 4 per
 * logit (max, subtract and exp, sum); smooth L1 and KL divergence 4 per
 * element; triplet margin 8 per anchor element (two differences, two eps
 * adds, two squares accumulated); attention its two matmuls and a softmax.
 * Scans 1 per element; flip, cat, zeros and slices move data only: 0. */
static double in_numel(const kbv_graph *g, const kbv_node *n)
{
    return numel(&g->values[n->args[0]]);
}

static double flops_per_input(const kbv_graph *g, const kbv_node *n) { return in_numel(g, n); }
static double flops_2_per_input(const kbv_graph *g, const kbv_node *n)
{
    return 2.0 * in_numel(g, n);
}
static double flops_4_per_input(const kbv_graph *g, const kbv_node *n)
{
    return 4.0 * in_numel(g, n);
}
static double flops_8_per_input(const kbv_graph *g, const kbv_node *n)
{
    return 8.0 * in_numel(g, n);
}
static double flops_7(const kbv_graph *g, const kbv_node *n) { return 7.0 * out_numel(g, n); }

/* x*x for 2, x*x*x for 3 (PyTorch's special cases), one op otherwise. */
static double flops_pow(const kbv_graph *g, const kbv_node *n)
{
    return (n->def->f[0] == 3.0 ? 2.0 : 1.0) * out_numel(g, n);
}

/* Two matmuls (2 L S E and 2 L S Ev per batch) and a softmax over L x S (5 each). */
static double flops_sdpa(const kbv_graph *g, const kbv_node *n)
{
    const kbv_value *q = &g->values[n->args[0]], *k = &g->values[n->args[1]],
                    *v = &g->values[n->args[2]];
    int nd = q->ndim;
    double batch = numel(q) / ((double)q->shape[nd - 2] * (double)q->shape[nd - 1]);
    double l = (double)q->shape[nd - 2], s = (double)k->shape[nd - 2];
    double e = (double)q->shape[nd - 1], ev = (double)v->shape[nd - 1];
    return batch * (2.0 * l * s * e + 2.0 * l * s * ev + 5.0 * l * s);
}

/* ------------------------------------------------------ level-2 additions */

/* F.linear: a [..., K] (1-D included), weight b [N, K], optional bias c [N];
 * the result [..., N]. */
static kbv_status shape_linear(const kbv_node_def *n, const kbv_value *const *args,
                               kbv_value *out)
{
    const kbv_value *a = args[0], *w = args[1];
    char da[160], dw[160], dc[160];
    KBV_TRY(need_float("linear", a));
    KBV_TRY(need_float("linear", w));
    if (a->ndim < 1 || w->ndim != 2 || a->shape[a->ndim - 1] != w->shape[1])
        return kbv_fail(KBV_ERR_INVALID, "linear: input %s and weight %s are not [..., K] and "
                        "[N, K]",
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(w, dw, sizeof dw));
    bool has_bias = n->args[2] != NULL;
    if (has_bias) {
        const kbv_value *c = args[2];
        KBV_TRY(need_float("linear", c));
        if (c->ndim != 1 || c->shape[0] != w->shape[0])
            return kbv_fail(KBV_ERR_INVALID, "linear: bias %s is not [%lld] for weight %s",
                            kbv_value_describe(c, dc, sizeof dc), (long long)w->shape[0],
                            kbv_value_describe(w, dw, sizeof dw));
    }
    out->dtype = promote(a, w);
    copy_shape(out, a);
    out->shape[out->ndim - 1] = w->shape[0];
    return KBV_OK;
}

/* 2 M N K for the product, M N for the bias. */
static double flops_linear(const kbv_graph *g, const kbv_node *n)
{
    return flops_contraction(g, n) + (n->n_args == 3 ? out_numel(g, n) : 0.0);
}

/* torch.minimum / torch.maximum: broadcasting, PyTorch's type promotion. */
static kbv_status shape_minmax(const kbv_node_def *n, const kbv_value *const *a, kbv_value *o)
{
    return shape_binary(kbv_op_table[n->op].name, a, o, false);
}

/* ------------------------------------------------------------------- table */

/* FLOPs per element of the activations are nominal counts of the arithmetic
 * a straightforward implementation does, with exp/log/erf/tanh counted as
 * one each: sigmoid 1/(1+exp(-x)) 4; tanh 5; gelu x*0.5*(1+erf(x/sqrt2)) 8
 * (erf costs more, but counts as one); selu scale*(x>0 ? x : alpha*expm1)
 * 4; softplus log1p(exp(x)) with threshold 4; elu 3; hardsigmoid 3;
 * hardtanh 2 (two compares); leaky_relu 2; relu and abs 1. Softmax and
 * log_softmax: max, subtract, exp, sum, divide (or log and subtract): 5.
 * Views, diag and triangles move data only: 0. */
const kbv_op_info kbv_op_table[KBV_OP_COUNT] = {
    [KBV_OP_NONE] = {NULL, 0, false, NULL, NULL, NULL},

    [KBV_OP_MATMUL] = {"matmul", 2, false, "torch.matmul({0}, {1})", shape_matmul,
                       flops_contraction,
        KBV_TF32_MATMUL},
    [KBV_OP_BMM] = {"bmm", 2, false, "torch.bmm({0}, {1})", shape_bmm, flops_contraction,
        KBV_TF32_MATMUL},
    [KBV_OP_EINSUM] = {"einsum", 2, false, "torch.einsum(\"{s}\", {0}, {1})", shape_einsum,
                       flops_contraction,
        KBV_TF32_MATMUL},
    [KBV_OP_TRANSPOSE] = {"transpose", 1, true, "{0}.T", shape_transpose, flops_none},
    [KBV_OP_DIAG] = {"diag", 1, false, "torch.diag({0})", shape_diag, flops_none},
    [KBV_OP_TRIU] = {"triu", 1, false, "torch.triu({0}, diagonal={i0})", shape_triangle,
                     flops_none},
    [KBV_OP_TRIL] = {"tril", 1, false, "torch.tril({0}, diagonal={i0})", shape_triangle,
                     flops_none},

    [KBV_OP_ADD] = {"add", 2, false, "({0} + {1})", shape_add, flops_1,
                    .torch_inplace = "{0}.add_({1})"},
    [KBV_OP_SUB] = {"sub", 2, false, "({0} - {1})", shape_sub, flops_1},
    [KBV_OP_MUL] = {"mul", 2, false, "({0} * {1})", shape_mul, flops_1},
    [KBV_OP_DIV] = {"div", 2, false, "({0} / {1})", shape_div, flops_1},

    [KBV_OP_ADD_SCALAR] = {"add_scalar", 1, false, "({f0} + {0})", shape_scalar, flops_1},
    [KBV_OP_MUL_SCALAR] = {"mul_scalar", 1, false, "({0} * {f0})", shape_scalar, flops_1},

    [KBV_OP_ABS] = {"abs", 1, false, "torch.abs({0})", shape_same, flops_1},
    [KBV_OP_RELU] = {"relu", 1, false, "torch.relu({0})", shape_same, flops_1,
                     .torch_inplace = "torch.relu_({0})"},
    [KBV_OP_LEAKY_RELU] = {"leaky_relu", 1, false,
                           "torch.nn.functional.leaky_relu({0}, negative_slope={f0})",
                           shape_float_unary, flops_2},
    [KBV_OP_SIGMOID] = {"sigmoid", 1, false, "torch.sigmoid({0})", shape_float_unary, flops_4},
    [KBV_OP_TANH] = {"tanh", 1, false, "torch.tanh({0})", shape_float_unary, flops_5},
    [KBV_OP_GELU] = {"gelu", 1, false, "torch.nn.functional.gelu({0})", shape_float_unary,
                     flops_8},
    [KBV_OP_SELU] = {"selu", 1, false, "torch.selu({0})", shape_float_unary, flops_4},
    [KBV_OP_HARDSIGMOID] = {"hardsigmoid", 1, false, "torch.nn.functional.hardsigmoid({0})",
                            shape_float_unary, flops_3},
    [KBV_OP_SOFTPLUS] = {"softplus", 1, false, "torch.nn.functional.softplus({0})",
                         shape_float_unary, flops_4},
    [KBV_OP_ELU] = {"elu", 1, false, "torch.nn.functional.elu({0}, alpha={f0})",
                    shape_float_unary, flops_3},
    [KBV_OP_HARDTANH] = {"hardtanh", 1, false,
                         "torch.nn.functional.hardtanh({0}, min_val={f0}, max_val={f1})",
                         shape_hardtanh, flops_2,
                         .torch_inplace = "torch.nn.functional.hardtanh({0}, min_val={f0}, "
                                          "max_val={f1}, inplace=True)"},

    [KBV_OP_SOFTMAX] = {"softmax", 1, false, "torch.softmax({0}, dim={i0})", shape_softmax,
                        flops_5,
        .contiguous_operands = true},
    [KBV_OP_LOG_SOFTMAX] = {"log_softmax", 1, false, "torch.log_softmax({0}, dim={i0})",
                            shape_softmax, flops_5,
        .contiguous_operands = true},

    /* normalisation, reduction, scan, loss and attention ops */
    [KBV_OP_BATCH_NORM] = {"batch_norm", 3, false,
                           "torch.nn.functional.batch_norm({0}, None, None, {1}, {2}, "
                           "training=True, momentum={f1}, eps={f0})",
                           shape_batch_norm, flops_7,
        .contiguous_operands = true},
    [KBV_OP_INSTANCE_NORM] = {"instance_norm", 1, false,
                              "torch.nn.functional.instance_norm({0}, eps={f0})",
                              shape_instance_norm, flops_5,
        .contiguous_operands = true},
    [KBV_OP_GROUP_NORM] = {"group_norm", 3, false,
                           "torch.nn.functional.group_norm({0}, {i0}, {1}, {2}, eps={f0})",
                           shape_group_norm, flops_7,
        .contiguous_operands = true},
    [KBV_OP_LAYER_NORM] = {"layer_norm", 3, false,
                           "torch.nn.functional.layer_norm({0}, {1}.shape, {1}, {2}, eps={f0})",
                           shape_layer_norm, flops_7,
        .contiguous_operands = true},
    [KBV_OP_SUM] = {"sum", 1, false, "torch.sum({0}, dim={i0}, keepdim={b1})",
                    shape_reduce_float, flops_per_input},
    [KBV_OP_MEAN] = {"mean", 1, false, "torch.mean({0}, dim={i0}, keepdim={b1})",
                     shape_reduce_float, flops_per_input},
    [KBV_OP_MAX] = {"max", 1, false, "torch.max({0}, dim={i0}, keepdim={b1}).values",
                    shape_reduce_float, flops_per_input},
    [KBV_OP_MIN] = {"min", 1, false, "torch.min({0}, dim={i0}, keepdim={b1}).values",
                    shape_reduce_float, flops_per_input},
    [KBV_OP_ARGMAX] = {"argmax", 1, false, "torch.argmax({0}, dim={i0}, keepdim={b1})",
                       shape_reduce_index, flops_per_input},
    [KBV_OP_ARGMIN] = {"argmin", 1, false, "torch.argmin({0}, dim={i0}, keepdim={b1})",
                       shape_reduce_index, flops_per_input},
    [KBV_OP_NORM_DIM] = {"norm_dim", 1, false, "torch.norm({0}, p=2, dim={i0}, keepdim={b1})",
                         shape_reduce_float, flops_2_per_input},
    [KBV_OP_MEAN_ALL] = {"mean_all", 1, false, "torch.mean({0})", shape_reduce_all,
                         flops_per_input},
    [KBV_OP_NORM_FRO] = {"norm_fro", 1, false, "torch.norm({0}, p=\"fro\")", shape_reduce_all,
                         flops_2_per_input},
    [KBV_OP_POW_SCALAR] = {"pow", 1, false, "torch.pow({0}, {f0})", shape_pow_scalar,
                           flops_pow},
    [KBV_OP_SQRT] = {"sqrt", 1, false, "torch.sqrt({0})", shape_float_unary, flops_1},
    [KBV_OP_LOG] = {"log", 1, false, "torch.log({0})", shape_float_unary, flops_1},
    [KBV_OP_RSUB_SCALAR] = {"rsub_scalar", 1, false, "({f0} - {0})", shape_scalar, flops_1},
    [KBV_OP_CLAMP_MIN] = {"clamp_min", 1, false, "torch.clamp({0}, min={f0})", shape_scalar,
                          flops_1},
    [KBV_OP_MUL_MASK] = {"mul_mask", 2, false, "({0} * {1})", shape_mul_mask, flops_1},
    [KBV_OP_CUMSUM] = {"cumsum", 1, false, "torch.cumsum({0}, dim={i0})", shape_scan, flops_1},
    [KBV_OP_CUMPROD] = {"cumprod", 1, false, "torch.cumprod({0}, dim={i0})", shape_scan,
                        flops_1},
    [KBV_OP_FLIP] = {"flip", 1, false, "{0}.flip({i0})", shape_scan, flops_none},
    [KBV_OP_ZEROS_SLICE] = {"zeros_slice", 1, false,
                            "torch.zeros_like({0}.select({i0}, 0).unsqueeze({i0}))",
                            shape_zeros_slice, flops_none},
    [KBV_OP_CAT] = {"cat", -1, false, "torch.cat(({*}), dim={i0})", shape_cat, flops_none,
                    .min_args = 2},
    [KBV_OP_DROP_LAST] = {"drop_last", 1, true, "{0}[:-1]", shape_drop_last, flops_none},
    [KBV_OP_CROSS_ENTROPY] = {"cross_entropy", 2, false,
                              "torch.nn.functional.cross_entropy({0}, {1})", shape_cross_entropy,
                              flops_4_per_input},
    [KBV_OP_SMOOTH_L1] = {"smooth_l1_loss", 2, false,
                          "torch.nn.functional.smooth_l1_loss({0}, {1}, beta={f0})",
                          shape_pair_loss, flops_4_per_input},
    [KBV_OP_KL_DIV] = {"kl_div", 2, false,
                       "torch.nn.functional.kl_div({0}, {1}, reduction=\"batchmean\")",
                       shape_pair_loss, flops_4_per_input},
    [KBV_OP_TRIPLET_MARGIN] = {"triplet_margin_loss", 3, false,
                               "torch.nn.functional.triplet_margin_loss({0}, {1}, {2}, "
                               "margin={f0}, p={f1}, eps={f2})",
                               shape_triplet, flops_8_per_input},
    [KBV_OP_SDPA] = {"scaled_dot_product_attention", 3, false,
                     "torch.nn.functional.scaled_dot_product_attention({0}, {1}, {2})",
                     shape_sdpa, flops_sdpa,
        KBV_TF32_MATMUL,
        .contiguous_operands = true},
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops */
    /* shape rules and FLOPs in ops_conv.c; s holds PyTorch's keyword arguments */
    [KBV_OP_CONV1D] = {"conv1d", 2, false,
        "torch.nn.functional.conv1d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV2D] = {"conv2d", 2, false,
        "torch.nn.functional.conv2d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV3D] = {"conv3d", 2, false,
        "torch.nn.functional.conv3d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV1D_BIAS] = {"conv1d_bias", 3, false,
        "torch.nn.functional.conv1d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV2D_BIAS] = {"conv2d_bias", 3, false,
        "torch.nn.functional.conv2d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV3D_BIAS] = {"conv3d_bias", 3, false,
        "torch.nn.functional.conv3d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE1D] = {"conv_transpose1d", 2, false,
        "torch.nn.functional.conv_transpose1d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE2D] = {"conv_transpose2d", 2, false,
        "torch.nn.functional.conv_transpose2d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE3D] = {"conv_transpose3d", 2, false,
        "torch.nn.functional.conv_transpose3d({0}, {1}, None, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE1D_BIAS] = {"conv_transpose1d_bias", 3, false,
        "torch.nn.functional.conv_transpose1d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE2D_BIAS] = {"conv_transpose2d_bias", 3, false,
        "torch.nn.functional.conv_transpose2d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_CONV_TRANSPOSE3D_BIAS] = {"conv_transpose3d_bias", 3, false,
        "torch.nn.functional.conv_transpose3d({0}, {1}, {2}, {s})", kbv_shape_window, kbv_flops_window,
        KBV_TF32_CONV,
        .contiguous_operands = true},
    [KBV_OP_MAX_POOL1D] = {"max_pool1d", 1, false,
        "torch.nn.functional.max_pool1d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    [KBV_OP_MAX_POOL2D] = {"max_pool2d", 1, false,
        "torch.nn.functional.max_pool2d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    [KBV_OP_MAX_POOL3D] = {"max_pool3d", 1, false,
        "torch.nn.functional.max_pool3d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    [KBV_OP_AVG_POOL1D] = {"avg_pool1d", 1, false,
        "torch.nn.functional.avg_pool1d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    [KBV_OP_AVG_POOL2D] = {"avg_pool2d", 1, false,
        "torch.nn.functional.avg_pool2d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    [KBV_OP_AVG_POOL3D] = {"avg_pool3d", 1, false,
        "torch.nn.functional.avg_pool3d({0}, {s})", kbv_shape_window, kbv_flops_window,
        .contiguous_operands = true},
    /* (end of convolution and pooling ops) */

    /* the level-2 ops; the FLOPs of the activations as above: mish
     * x * tanh(softplus(x)) 6, hardswish x * min(max(x + 3, 0), 6) / 6 5,
     * gelu tanh form 9 (cube 2, 4 multiply-adds, tanh, two more), silu
     * x / (1 + exp(-x)) 4; views, clone and dropout 0 */
    [KBV_OP_LINEAR] = {.name = "linear", .n_args = 3, .min_args = 2,
        .torch = "torch.nn.functional.linear({0}, {1}, {2})", .shape = shape_linear,
        .flops = flops_linear, .tf32 = KBV_TF32_MATMUL},
    [KBV_OP_CLAMP] = {.name = "clamp", .n_args = 1,
        .torch = "torch.clamp({0}, min={f0}, max={f1})", .shape = shape_scalar,
        .flops = flops_2},
    [KBV_OP_CLAMP_MAX] = {.name = "clamp_max", .n_args = 1,
        .torch = "torch.clamp({0}, max={f0})", .shape = shape_scalar, .flops = flops_1},
    [KBV_OP_SUB_SCALAR] = {.name = "sub_scalar", .n_args = 1, .torch = "({0} - {f0})",
        .shape = shape_scalar, .flops = flops_1},
    [KBV_OP_DIV_SCALAR] = {.name = "div_scalar", .n_args = 1, .torch = "({0} / {f0})",
        .shape = shape_scalar, .flops = flops_1},
    [KBV_OP_MISH] = {.name = "mish", .n_args = 1, .torch = "torch.nn.functional.mish({0})",
        .shape = shape_float_unary, .flops = flops_6},
    [KBV_OP_HARDSWISH] = {.name = "hardswish", .n_args = 1,
        .torch = "torch.nn.functional.hardswish({0})", .shape = shape_float_unary,
        .flops = flops_5},
    [KBV_OP_GELU_TANH] = {.name = "gelu_tanh", .n_args = 1,
        .torch = "torch.nn.functional.gelu({0}, approximate=\"tanh\")",
        .shape = shape_float_unary, .flops = flops_9},
    [KBV_OP_SILU] = {.name = "silu", .n_args = 1, .torch = "torch.nn.functional.silu({0})",
        .shape = shape_float_unary, .flops = flops_4},
    [KBV_OP_MINIMUM] = {.name = "minimum", .n_args = 2, .torch = "torch.minimum({0}, {1})",
        .shape = shape_minmax, .flops = flops_1},
    [KBV_OP_MAXIMUM] = {.name = "maximum", .n_args = 2, .torch = "torch.maximum({0}, {1})",
        .shape = shape_minmax, .flops = flops_1},
    [KBV_OP_MIN_SCALAR] = {.name = "min_scalar", .n_args = 1,
        .torch = "torch.min({0}, torch.tensor({f0}))", .shape = shape_scalar, .flops = flops_1},
    [KBV_OP_MAX_SCALAR] = {.name = "max_scalar", .n_args = 1,
        .torch = "torch.max({0}, torch.tensor({f0}))", .shape = shape_scalar, .flops = flops_1},
    [KBV_OP_SUM_DIMS] = {.name = "sum_dims", .n_args = 1,
        .torch = "torch.sum({0}, dim={m0}, keepdim={b1})", .shape = kbv_shape_reduce_dims,
        .flops = flops_per_input},
    [KBV_OP_MEAN_DIMS] = {.name = "mean_dims", .n_args = 1,
        .torch = "torch.mean({0}, dim={m0}, keepdim={b1})", .shape = kbv_shape_reduce_dims,
        .flops = flops_per_input},
    [KBV_OP_AMAX_DIMS] = {.name = "amax_dims", .n_args = 1,
        .torch = "torch.amax({0}, dim={m0}, keepdim={b1})", .shape = kbv_shape_reduce_dims,
        .flops = flops_per_input},
    [KBV_OP_LOGSUMEXP] = {.name = "logsumexp", .n_args = 1,
        .torch = "torch.logsumexp({0}, dim={i0}, keepdim={b1})", .shape = kbv_shape_reduce_dims,
        .flops = kbv_flops_logsumexp},
    [KBV_OP_ADAPTIVE_AVG_POOL1D] = {.name = "adaptive_avg_pool1d", .n_args = 1,
        .torch = "torch.nn.functional.adaptive_avg_pool1d({0}, {s})",
        .shape = kbv_shape_adaptive_pool, .flops = kbv_flops_adaptive_pool,
        .contiguous_operands = true},
    [KBV_OP_ADAPTIVE_AVG_POOL2D] = {.name = "adaptive_avg_pool2d", .n_args = 1,
        .torch = "torch.nn.functional.adaptive_avg_pool2d({0}, {s})",
        .shape = kbv_shape_adaptive_pool, .flops = kbv_flops_adaptive_pool,
        .contiguous_operands = true},
    [KBV_OP_ADAPTIVE_AVG_POOL3D] = {.name = "adaptive_avg_pool3d", .n_args = 1,
        .torch = "torch.nn.functional.adaptive_avg_pool3d({0}, {s})",
        .shape = kbv_shape_adaptive_pool, .flops = kbv_flops_adaptive_pool,
        .contiguous_operands = true},
    [KBV_OP_UNSQUEEZE] = {.name = "unsqueeze", .n_args = 1, .is_view = true,
        .torch = "{0}.unsqueeze({i0})", .shape = kbv_shape_unsqueeze, .flops = flops_none},
    [KBV_OP_SQUEEZE] = {.name = "squeeze", .n_args = 1, .is_view = true,
        .torch = "{0}.squeeze({i0})", .shape = kbv_shape_squeeze, .flops = flops_none},
    [KBV_OP_SQUEEZE_ALL] = {.name = "squeeze_all", .n_args = 1, .is_view = true,
        .torch = "{0}.squeeze()", .shape = kbv_shape_squeeze, .flops = flops_none},
    [KBV_OP_VIEW] = {.name = "view", .n_args = 1, .is_view = true, .torch = "{0}.view{s}",
        .shape = kbv_shape_view, .shape_in = kbv_shape_view_in, .flops = flops_none},
    [KBV_OP_FLATTEN] = {.name = "flatten", .n_args = 1, .is_view = true,
        .torch = "torch.flatten({0}, start_dim={i0}, end_dim={i1})",
        .shape = kbv_shape_flatten, .flops = flops_none},
    [KBV_OP_CLONE] = {.name = "clone", .n_args = 1, .torch = "{0}.clone()",
        .shape = kbv_shape_identity, .flops = flops_none},
    [KBV_OP_DROPOUT] = {.name = "dropout", .n_args = 1, .is_view = true,
        .torch = "torch.nn.functional.dropout({0}, p={f0}, training={b0})",
        .shape = kbv_shape_identity, .flops = flops_none},
    /* (end of the level-2 ops) */

    [KBV_OP_TRANSPOSE_DIMS] = {.name = "transpose_dims", .n_args = 1, .is_view = true,
        .torch = "{0}.transpose({i0}, {i1})", .shape = kbv_shape_transpose_dims,
        .flops = flops_none},
    [KBV_OP_PERMUTE] = {.name = "permute", .n_args = 1, .is_view = true,
        .torch = "{0}.permute{s}", .shape = kbv_shape_permute, .flops = flops_none},
    [KBV_OP_NARROW] = {.name = "narrow", .n_args = 1, .is_view = true,
        .torch = "{0}.narrow({i0}, {i1}, {i2})", .shape = kbv_shape_narrow,
        .flops = flops_none},
    [KBV_OP_EXPAND] = {.name = "expand", .n_args = 1, .is_view = true,
        .torch = "{0}.expand{s}", .shape = kbv_shape_expand, .shape_in = kbv_shape_expand_in,
        .flops = flops_none},
    [KBV_OP_CONTIGUOUS] = {.name = "contiguous", .n_args = 1, .is_view = true,
        .torch = "{0}.contiguous()", .shape = kbv_shape_identity, .flops = flops_none,
        .copy_unless_view = true},
    [KBV_OP_RESHAPE] = {.name = "reshape", .n_args = 1, .is_view = true,
        .torch = "{0}.reshape{s}", .shape = kbv_shape_view, .shape_in = kbv_shape_view_in,
        .flops = flops_none, .copy_unless_view = true},
    [KBV_OP_SPLIT] = {.name = "split", .n_args = 1, .is_view = true,
        .torch = "{0}.split({i0}, dim={i1})", .shape = kbv_shape_split, .flops = flops_none,
        .several_outputs = true},
    [KBV_OP_CHUNK] = {.name = "chunk", .n_args = 1, .is_view = true,
        .torch = "{0}.chunk({i0}, dim={i1})", .shape = kbv_shape_split, .flops = flops_none,
        .several_outputs = true},
    /* (end of the general views) */
    /* the recurrent ops: rules in ops_rnn.c; nn.LSTM/nn.GRU render as the
     * torch._VF call their forward makes, with the module's own flags */
    [KBV_OP_SELECT] = {.name = "select", .n_args = 1, .is_view = true,
        .torch = "{0}.select({i0}, {i1})", .shape = kbv_shape_select, .flops = flops_none},
    [KBV_OP_STACK] = {.name = "stack", .n_args = -1, .min_args = 1,
        .torch = "torch.stack([{*}], dim={i0})", .shape = kbv_shape_stack, .flops = flops_none},
    [KBV_OP_ZEROS_STATE] = {.name = "zeros_state", .n_args = 2,
        .torch = "torch.zeros({i0}, {0}.size({i1}), {1}.size(1), dtype={0}.dtype, "
                 "device={0}.device)",
        .shape = kbv_shape_zeros_state, .flops = flops_none},
    [KBV_OP_LSTM] = {.name = "lstm", .n_args = -1, .min_args = 7,
        .torch = "torch._VF.lstm({0}, ({1}, {2}), [{*3}], True, {i1}, 0.0, self.training, {b2}, "
                 "{b3})[{i0}]",
        .shape = kbv_shape_rnn, .flops = kbv_flops_rnn, .tf32 = KBV_TF32_CONV},
    [KBV_OP_GRU] = {.name = "gru", .n_args = -1, .min_args = 6,
        .torch = "torch._VF.gru({0}, {1}, [{*2}], True, {i1}, 0.0, self.training, {b2}, "
                 "{b3})[{i0}]",
        .shape = kbv_shape_rnn, .flops = kbv_flops_rnn, .tf32 = KBV_TF32_CONV},
    /* (end of the recurrent ops) */
    /* the attention ops */
    [KBV_OP_MASKED_FILL] = {.name = "masked_fill", .n_args = 2,
        .torch = "{0}.masked_fill({1}, {f0})", .shape = shape_masked_fill, .flops = flops_none},
    [KBV_OP_EQ_SCALAR] = {.name = "eq_scalar", .n_args = 1, .torch = "({0} == {f0})",
        .shape = shape_eq_scalar, .flops = flops_1},
    [KBV_OP_UNFOLD] = {.name = "unfold", .n_args = 1, .is_view = true,
        .torch = "{0}.unfold({i0}, {i1}, {i2})", .shape = kbv_shape_unfold, .flops = flops_none},
    /* (end of the attention ops) */
    /* the Swin ops: rules in ops_shifted.c (pad, roll, index) and ops_slice.c */
    [KBV_OP_PAD] = {.name = "pad", .n_args = 1,
        .torch = "torch.nn.functional.pad({0}, {s}, \"constant\", {f0})",
        .shape = kbv_shape_shifted, .flops = flops_none},
    [KBV_OP_SLICE] = {.name = "slice", .n_args = 1, .is_view = true, .torch = "{0}[{s}]",
        .shape = kbv_shape_slice, .shape_in = kbv_shape_slice_in, .flops = flops_none},
    [KBV_OP_ROLL] = {.name = "roll", .n_args = 1, .torch = "torch.roll({0}, {s})",
        .shape = kbv_shape_shifted, .flops = flops_none},
    [KBV_OP_INDEX] = {.name = "index", .n_args = 2, .torch = "{0}[{1}]",
        .shape = kbv_shape_index, .flops = flops_none, .contiguous_operands = true},
    [KBV_OP_ZEROS_LIKE] = {.name = "zeros_like", .n_args = 1, .torch = "torch.zeros_like({0})",
        .shape = kbv_shape_identity, .flops = flops_none},
    /* (end of the Swin ops) */
    /* NetVLAD and Mamba-2: exp 1 FLOP; normalize the squares' sum (2), the
     * division (1) */
    [KBV_OP_EXP] = {.name = "exp", .n_args = 1, .torch = "torch.exp({0})",
        .shape = shape_float_unary, .flops = flops_1},
    [KBV_OP_NORMALIZE] = {.name = "normalize", .n_args = 1,
        .torch = "torch.nn.functional.normalize({0}, p=2.0, dim={i0}, eps={f0})",
        .shape = shape_normalize, .flops = flops_3},
    [KBV_OP_EINSUM_N] = {.name = "einsum_n", .n_args = -1, .min_args = 1,
        .torch = "torch.einsum(\"{s}\", {*})", .shape = kbv_shape_einsum_n,
        .flops = kbv_flops_einsum_n, .tf32 = KBV_TF32_MATMUL},
    [KBV_OP_SEGSUM_MASK] = {.name = "segsum_mask", .n_args = 1,
        .torch = "~torch.tril(torch.ones({0}.size(-1), {0}.size(-1), dtype=torch.bool, "
                 "device={0}.device), diagonal=0)",
        .shape = shape_segsum_mask, .flops = flops_none},
    /* (end of the NetVLAD and Mamba-2 ops) */
};

/* The table's size is fixed by its declaration, so a missing row would be a
 * silent zero row: test_graph.c checks that every op has its row filled. */
