/* The op table: one row per kbv_op with its PyTorch shape rule, FLOP count
 * and PyTorch rendering. Shape rules follow PyTorch exactly (broadcasting,
 * 1-D matmul cases, negative dims) and fail with a message that names the
 * op and the operands' shapes; graph.c adds the problem and node. */
#include "graph/ops_table.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers */

/* "A[33,47]" for messages. */
static const char *describe(const kbv_value *v, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "%s[", v->name ? v->name : "?");
    for (int d = 0; d < v->ndim && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", d ? "," : "",
                                 (long long)v->shape[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
    return buf;
}

static bool is_float(kbv_dtype dt)
{
    return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16 || dt == KBV_BF16;
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
    bool fa = is_float(a->dtype), fb = is_float(b->dtype);
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
    return is_float(dt) ? dt : KBV_F32;
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
                        describe(a, da, sizeof da), describe(b, db, sizeof db));
    int64_t ka = a->shape[a->ndim - 1];
    int64_t kb = b->ndim >= 2 ? b->shape[b->ndim - 2] : b->shape[0];
    if (ka != kb)
        return kbv_fail(KBV_ERR_INVALID, "matmul: inner sizes differ (%lld vs %lld): %s x %s",
                        (long long)ka, (long long)kb, describe(a, da, sizeof da),
                        describe(b, db, sizeof db));
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
                        describe(a, da, sizeof da), describe(b, db, sizeof db));
    if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return kbv_fail(KBV_ERR_INVALID, "bmm: shapes do not match: %s x %s",
                        describe(a, da, sizeof da), describe(b, db, sizeof db));
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
                        eq, describe(a, da, sizeof da), describe(b, db, sizeof db), la);
    if (a->shape[a->ndim - 1] != b->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "einsum '%s': contracted sizes differ: %s and %s", eq,
                        describe(a, da, sizeof da), describe(b, db, sizeof db));
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
                        describe(a, da, sizeof da));
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
                        describe(a, da, sizeof da));
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
                        describe(a, da, sizeof da));
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
                        describe(a, da, sizeof da), describe(b, db, sizeof db));
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
                        (long long)n->i[0], describe(a, da, sizeof da));
    out->dtype = float_result(a->dtype);
    copy_shape(out, a);
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
static double flops_8(const kbv_graph *g, const kbv_node *n) { return 8.0 * out_numel(g, n); }

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
                       flops_contraction},
    [KBV_OP_BMM] = {"bmm", 2, false, "torch.bmm({0}, {1})", shape_bmm, flops_contraction},
    [KBV_OP_EINSUM] = {"einsum", 2, false, "torch.einsum(\"{s}\", {0}, {1})", shape_einsum,
                       flops_contraction},
    [KBV_OP_TRANSPOSE] = {"transpose", 1, true, "{0}.T", shape_transpose, flops_none},
    [KBV_OP_DIAG] = {"diag", 1, false, "torch.diag({0})", shape_diag, flops_none},
    [KBV_OP_TRIU] = {"triu", 1, false, "torch.triu({0}, diagonal={i0})", shape_triangle,
                     flops_none},
    [KBV_OP_TRIL] = {"tril", 1, false, "torch.tril({0}, diagonal={i0})", shape_triangle,
                     flops_none},

    [KBV_OP_ADD] = {"add", 2, false, "({0} + {1})", shape_add, flops_1},
    [KBV_OP_SUB] = {"sub", 2, false, "({0} - {1})", shape_sub, flops_1},
    [KBV_OP_MUL] = {"mul", 2, false, "({0} * {1})", shape_mul, flops_1},
    [KBV_OP_DIV] = {"div", 2, false, "({0} / {1})", shape_div, flops_1},

    [KBV_OP_ADD_SCALAR] = {"add_scalar", 1, false, "({f0} + {0})", shape_scalar, flops_1},
    [KBV_OP_MUL_SCALAR] = {"mul_scalar", 1, false, "({0} * {f0})", shape_scalar, flops_1},

    [KBV_OP_ABS] = {"abs", 1, false, "torch.abs({0})", shape_same, flops_1},
    [KBV_OP_RELU] = {"relu", 1, false, "torch.relu({0})", shape_same, flops_1},
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
                         shape_hardtanh, flops_2},

    [KBV_OP_SOFTMAX] = {"softmax", 1, false, "torch.softmax({0}, dim={i0})", shape_softmax,
                        flops_5},
    [KBV_OP_LOG_SOFTMAX] = {"log_softmax", 1, false, "torch.log_softmax({0}, dim={i0})",
                            shape_softmax, flops_5},

    /* normalisation, reduction, scan, loss and attention ops */
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops */
    /* (end of convolution and pooling ops) */
};

/* The table's size is fixed by its declaration, so a missing row would be a
 * silent zero row: test_graph.c checks that every op has its row filled. */
