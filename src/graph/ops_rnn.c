/* Shape rules and FLOP counts of the recurrent ops (ops_rnn.h), with
 * PyTorch's rules: select and stack wrap negative dims and indices;
 * nn.LSTM/nn.GRU check every weight against the input and hidden sizes as
 * RNNBase.check_forward_args and _flat_weights do. */
#include "graph/ops_rnn.h"

#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

static const char *op_name(const kbv_node_def *n) { return kbv_op_table[n->op].name; }

kbv_status kbv_shape_select(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim < 1)
        return kbv_fail(KBV_ERR_INVALID, "select: a 0-dim operand %s",
                        kbv_value_describe(a, da, sizeof da));
    int64_t dim = n->i[0] < 0 ? n->i[0] + a->ndim : n->i[0];
    if (dim < 0 || dim >= a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "select: dim %lld is out of range for %s",
                        (long long)n->i[0], kbv_value_describe(a, da, sizeof da));
    int64_t size = a->shape[dim];
    if (n->i[1] < -size || n->i[1] >= size)
        return kbv_fail(KBV_ERR_INVALID, "select: index %lld is out of range for dim %lld of %s",
                        (long long)n->i[1], (long long)dim, kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    out->ndim = 0;
    for (int d = 0; d < a->ndim; d++)
        if (d != dim)
            out->shape[out->ndim++] = a->shape[d];
    return KBV_OK;
}

kbv_status kbv_shape_stack(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160], db[160];
    for (int k = 1; k < n->n_args; k++) {
        const kbv_value *b = args[k];
        bool same = b->ndim == a->ndim && b->dtype == a->dtype;
        for (int d = 0; same && d < a->ndim; d++)
            same = b->shape[d] == a->shape[d];
        if (!same)
            return kbv_fail(KBV_ERR_INVALID, "stack: operand %d %s differs from operand 0 %s", k,
                            kbv_value_describe(b, db, sizeof db),
                            kbv_value_describe(a, da, sizeof da));
    }
    if (a->ndim + 1 > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "stack: %s has %d dims already",
                        kbv_value_describe(a, da, sizeof da), KBV_MAX_DIMS);
    int64_t dim = n->i[0] < 0 ? n->i[0] + a->ndim + 1 : n->i[0];
    if (dim < 0 || dim > a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "stack: dim %lld is out of range for %s",
                        (long long)n->i[0], kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    out->ndim = a->ndim + 1;
    for (int d = 0, j = 0; d < out->ndim; d++)
        out->shape[d] = d == dim ? n->n_args : a->shape[j++];
    return KBV_OK;
}

kbv_status kbv_shape_zeros_state(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out)
{
    const kbv_value *a = args[0], *w = args[1];
    char da[160], dw[160];
    if (n->i[0] < 1 || n->i[1] < 0 || n->i[1] >= a->ndim || w->ndim != 2 ||
        !kbv_dtype_is_float(a->dtype))
        return kbv_fail(KBV_ERR_INVALID,
                        "zeros_state: %lld states need a float input with a dim %lld and a 2-D "
                        "weight_hh, got %s and %s",
                        (long long)n->i[0], (long long)n->i[1],
                        kbv_value_describe(a, da, sizeof da), kbv_value_describe(w, dw, sizeof dw));
    out->dtype = a->dtype;
    out->ndim = 3;
    out->shape[0] = n->i[0];
    out->shape[1] = a->shape[n->i[1]];
    out->shape[2] = w->shape[1];
    return KBV_OK;
}

kbv_status kbv_rnn_dims_of(const kbv_node_def *n, int n_args, int x_ndim, const int64_t *x_shape,
                           int64_t hidden, kbv_rnn_dims *out)
{
    kbv_rnn_dims r = {.is_lstm = n->op == KBV_OP_LSTM};
    r.gates = r.is_lstm ? 4 : 3;
    r.states = r.is_lstm ? 2 : 1;
    r.result = (int)n->i[0];
    r.layers = (int)n->i[1];
    r.dirs = n->i[2] ? 2 : 1;
    r.batch_first = n->i[3] != 0;
    if ((n->op != KBV_OP_LSTM && n->op != KBV_OP_GRU) || r.result < 0 ||
        r.result > r.states || n->i[1] < 1 || n->i[1] > 1024 || n->i[2] < 0 || n->i[2] > 1 ||
        n->i[3] < 0 || n->i[3] > 1)
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: result %lld (0 output, 1 h_n%s), layers %lld, bidirectional %lld "
                        "and batch_first %lld are not valid",
                        op_name(n), (long long)n->i[0], r.is_lstm ? ", 2 c_n" : "",
                        (long long)n->i[1], (long long)n->i[2], (long long)n->i[3]);
    int want = 1 + r.states + 4 * r.layers * r.dirs;
    if (n_args != want)
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: %d operands; %d layers x %d directions take %d (x, %s, then "
                        "weight_ih, weight_hh, bias_ih, bias_hh each)",
                        op_name(n), n_args, r.layers, r.dirs, want, r.is_lstm ? "h0, c0" : "h0");
    if (x_ndim != 3 || hidden < 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: the input must be 3-D (batched), got %d dims",
                        op_name(n), x_ndim);
    r.seq = x_shape[r.batch_first ? 1 : 0];
    r.batch = x_shape[r.batch_first ? 0 : 1];
    r.input = x_shape[2];
    r.hidden = hidden;
    *out = r;
    return KBV_OK;
}

static bool has_shape(const kbv_value *v, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
    const int64_t want[3] = {d0, d1, d2};
    if (v->ndim != ndim)
        return false;
    for (int d = 0; d < ndim; d++)
        if (v->shape[d] != want[d])
            return false;
    return true;
}

kbv_status kbv_shape_rnn(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    char da[160];
    const kbv_value *x = args[0];
    int states = n->op == KBV_OP_LSTM ? 2 : 1;
    if (n->n_args < 1 + states + 4)
        return kbv_fail(KBV_ERR_INVALID, "%s: %d operands, fewer than one layer's", op_name(n),
                        n->n_args);
    const kbv_value *w_hh0 = args[1 + states + 1];
    kbv_rnn_dims r;
    KBV_TRY(kbv_rnn_dims_of(n, n->n_args, x->ndim, x->shape,
                            w_hh0->ndim == 2 ? w_hh0->shape[1] : 0, &r));
    const int64_t G = r.gates, H = r.hidden;
    for (int k = 0; k < n->n_args; k++)
        if (args[k]->dtype != x->dtype || !kbv_dtype_is_float(x->dtype))
            return kbv_fail(KBV_ERR_INVALID, "%s: operand %d is %s, the input %s; all one float "
                            "dtype", op_name(n), k, kbv_dtype_name(args[k]->dtype),
                            kbv_dtype_name(x->dtype));
    for (int s = 0; s < r.states; s++)
        if (!has_shape(args[1 + s], 3, (int64_t)r.layers * r.dirs, r.batch, H))
            return kbv_fail(KBV_ERR_INVALID, "%s: %s is %s, not [%lld, %lld, %lld]", op_name(n),
                            s ? "c0" : "h0", kbv_value_describe(args[1 + s], da, sizeof da),
                            (long long)r.layers * r.dirs, (long long)r.batch, (long long)H);
    for (int l = 0; l < r.layers; l++)
        for (int d = 0; d < r.dirs; d++) {
            int64_t in = l == 0 ? r.input : r.dirs * H;
            const int64_t rows[4] = {G * H, G * H, G * H, G * H}, cols[4] = {in, H, 0, 0};
            for (int w = 0; w < 4; w++) {
                const kbv_value *v = args[kbv_rnn_weight_arg(&r, l, d, w)];
                bool ok = w < 2 ? has_shape(v, 2, rows[w], cols[w], 0)
                                : has_shape(v, 1, rows[w], 0, 0);
                if (!ok)
                    return kbv_fail(KBV_ERR_INVALID,
                                    "%s: layer %d%s's %s is %s, not [%lld%s%lld]", op_name(n), l,
                                    d ? " (reverse)" : "",
                                    (const char *[]){"weight_ih", "weight_hh", "bias_ih",
                                                     "bias_hh"}[w],
                                    kbv_value_describe(v, da, sizeof da), (long long)rows[w],
                                    w < 2 ? ", " : "", w < 2 ? (long long)cols[w] : 0LL);
            }
        }
    out->dtype = x->dtype;
    out->ndim = 3;
    if (r.result == 0) {
        out->shape[0] = r.batch_first ? r.batch : r.seq;
        out->shape[1] = r.batch_first ? r.seq : r.batch;
        out->shape[2] = r.dirs * H;
    } else {
        out->shape[0] = (int64_t)r.layers * r.dirs;
        out->shape[1] = r.batch;
        out->shape[2] = H;
    }
    return KBV_OK;
}

/* Per step, layer and direction: the two products (2 G H (in + H) per batch
 * row), the four bias adds (G H each) and the cell's pointwise work, counted
 * as PyTorch's fused kernels do it per hidden unit: the LSTM's 4 gate
 * activations and 5 updates (c = f c + i g, h = o tanh(c)), the GRU's 3
 * activations and 6 updates. */
double kbv_flops_rnn(const kbv_graph *g, const kbv_node *n)
{
    const kbv_value *x = &g->values[n->args[0]];
    int states = n->op == KBV_OP_LSTM ? 2 : 1;
    const kbv_value *w_hh0 = &g->values[n->args[1 + states + 1]];
    kbv_rnn_dims r;
    if (kbv_rnn_dims_of(n->def, n->n_args, x->ndim, x->shape, w_hh0->shape[1], &r) != KBV_OK)
        return 0.0;
    double G = r.gates, H = (double)r.hidden, total = 0.0;
    for (int l = 0; l < r.layers; l++) {
        double in = l == 0 ? (double)r.input : r.dirs * H;
        double per_row = 2.0 * G * H * (in + H) + 2.0 * G * H + 9.0 * H;
        total += per_row * (double)r.batch * (double)r.seq * r.dirs;
    }
    return total;
}
