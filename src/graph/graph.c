/* kbv_graph_build: resolves a problem definition at one size into plain
 * data. Walks dims, inputs, params and nodes in order, looks every name up,
 * applies the op table's shape rules and records last uses and outputs.
 * Every error names the problem and the offending name. */
#include "graph/graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_table.h"

/* The problem key for messages ("L1/19"). */
static const char *key_of(const kbv_problem *def, char *buf, size_t cap)
{
    snprintf(buf, cap, "L%d/%d", def->level, def->id);
    return buf;
}

/* A Python identifier; with dotted set a state_dict path ("bn.weight",
 * "layer1.0.conv1.weight"): identifiers or, inside it, decimal indices of a
 * Sequential, joined by dots. */
static bool is_identifier(const char *s, bool dotted)
{
    if (!s || !*s)
        return false;
    const char *p = s;
    for (;;) {
        const char *start = p;
        bool number = dotted && p != s && isdigit((unsigned char)*p);
        while (*p && *p != '.') {
            unsigned char c = (unsigned char)*p;
            bool ok = number ? isdigit(c) : (isalpha(c) || c == '_' || (p != start && isdigit(c)));
            if (!ok)
                return false;
            p++;
        }
        if (p == start)
            return false;
        if (!*p)
            return !number;   /* the leaf is a name */
        if (!dotted || !p[1])
            return false;
        p++;
    }
}

/* One shape entry: a dim name or a positive decimal literal. */
static kbv_status resolve_extent(const kbv_problem *def, const kbv_graph *g,
                                 const char *owner, const char *entry, int64_t *out)
{
    char key[32];
    if (isdigit((unsigned char)entry[0])) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(entry, &end, 10);
        if (errno || *end || v <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: %s: shape entry '%s' is not a positive integer",
                            key_of(def, key, sizeof key), owner, entry);
        *out = v;
        return KBV_OK;
    }
    for (int d = 0; d < g->n_dims; d++)
        if (!strcmp(def->dims[d].name, entry)) {
            *out = g->dims[d];
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_INVALID, "%s: %s: unknown dim '%s' in its shape",
                    key_of(def, key, sizeof key), owner, entry);
}

static kbv_status resolve_shape(const kbv_problem *def, const kbv_graph *g,
                                const char *owner, const char *const *shape, kbv_value *v)
{
    v->ndim = 0;
    for (int d = 0; d < KBV_MAX_DIMS && shape[d]; d++) {
        KBV_TRY(resolve_extent(def, g, owner, shape[d], &v->shape[d]));
        v->ndim = d + 1;
    }
    return KBV_OK;
}

static int find_value(const kbv_graph *g, const char *name)
{
    for (int v = 0; v < g->n_values; v++)
        if (!strcmp(g->values[v].name, name))
            return v;
    return -1;
}

/* Appends a value after checking its name is valid and unused. */
static kbv_status add_value(const kbv_problem *def, kbv_graph *g, const char *what,
                            const char *name, kbv_value_kind kind, int def_index, kbv_value **out)
{
    char key[32];
    if (!is_identifier(name, kind == KBV_VALUE_PARAM))
        return kbv_fail(KBV_ERR_INVALID, "%s: %s #%d: '%s' is not a valid %s name",
                        key_of(def, key, sizeof key), what, def_index, name ? name : "(null)",
                        kind == KBV_VALUE_PARAM ? "state_dict" : "Python");
    if (find_value(g, name) >= 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s '%s': the name is already used",
                        key_of(def, key, sizeof key), what, name);
    kbv_value *v = &g->values[g->n_values++];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = kind;
    v->def_index = def_index;
    v->last_use = -1;
    *out = v;
    return KBV_OK;
}

static kbv_status check_dtype(const kbv_problem *def, const char *what, const char *name,
                              kbv_dtype dt)
{
    char key[32];
    if ((unsigned)dt > KBV_BOOL)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s '%s': unknown dtype %d",
                        key_of(def, key, sizeof key), what, name, (int)dt);
    return KBV_OK;
}

/* Generators must fit their dtype and shape (the backends rely on it). */
static kbv_status check_input(const kbv_problem *def, const kbv_input_def *in,
                              const kbv_value *v)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    bool is_float = kbv_dtype_is_float(in->dtype);
    switch (in->gen) {
    case KBV_GEN_RAND:
    case KBV_GEN_RANDN:
        if (!is_float)
            return kbv_fail(KBV_ERR_INVALID, "%s: input '%s': rand/randn needs a float dtype", k,
                            in->name);
        break;
    case KBV_GEN_RANDINT:
        if (in->structure == KBV_STRUCT_SIGNS) {
            if (!is_float || in->low != 0 || in->high != 2)
                return kbv_fail(KBV_ERR_INVALID,
                                "%s: input '%s': +-1 signs are randint(0, 2) into a float dtype",
                                k, in->name);
            return KBV_OK;
        }
        if (is_float || in->low >= in->high)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: input '%s': randint needs an integer dtype and low < high", k,
                            in->name);
        break;
    case KBV_GEN_SCALAR:
        if (v->ndim != 0 || !is_float)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: input '%s': a Python scalar is a 0-dim float input", k,
                            in->name);
        break;
    default:
        return kbv_fail(KBV_ERR_INVALID, "%s: input '%s': no generator", k, in->name);
    }
    if (in->structure == KBV_STRUCT_SIGNS)
        return kbv_fail(KBV_ERR_INVALID, "%s: input '%s': +-1 signs need generator randint", k,
                        in->name);
    bool derived = in->structure == KBV_STRUCT_SCALED || in->structure == KBV_STRUCT_SOFTMAX ||
                   in->structure == KBV_STRUCT_SCALED_SOFTMAX;
    if (derived && (!is_float || in->gen == KBV_GEN_SCALAR || v->ndim < 1))
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: input '%s': scaled/softmax structure needs a float tensor input", k,
                        in->name);
    if (in->structure != KBV_STRUCT_NONE && !derived &&
        (v->ndim != 2 || v->shape[0] != v->shape[1] || !is_float || in->gen == KBV_GEN_SCALAR))
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: input '%s': triangular/symmetric structure needs a square 2-D "
                        "float input",
                        k, in->name);
    return KBV_OK;
}

/* The hidden configs are data the fills and reports rely on: D1-D4 bits
 * only, with the reason, one of them kept; an extra's label is "H" and
 * digits (reports class draws by it), unique, and it replaces a float
 * tensor input by a known pattern. */
static kbv_status check_hidden(const kbv_problem *def, const kbv_graph *g)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    const kbv_hidden_def *h = &def->hidden;
    const unsigned all = KBV_OMIT_D1 | KBV_OMIT_D2 | KBV_OMIT_D3 | KBV_OMIT_D4;
    if ((h->omit & ~all) || h->omit == all)
        return kbv_fail(KBV_ERR_INVALID, "%s: hidden configs: omit 0x%x must leave one of D1-D4",
                        k, h->omit);
    if (h->omit && !h->omit_why)
        return kbv_fail(KBV_ERR_INVALID, "%s: hidden configs: an omitted config needs its reason",
                        k);
    for (int e = 0; e < KBV_HIDDEN_MAX_EXTRA && h->extra[e].label; e++) {
        const kbv_extra_config_def *x = &h->extra[e];
        const char *l = x->label;
        bool label_ok = l[0] == 'H' && l[1] && strlen(l) < 8;
        for (const char *c = l + 1; label_ok && *c; c++)
            label_ok = isdigit((unsigned char)*c);
        for (int f = 0; label_ok && f < e; f++)
            label_ok = strcmp(h->extra[f].label, l) != 0;
        if (!label_ok)
            return kbv_fail(KBV_ERR_INVALID, "%s: extra config '%s': a label is H and digits "
                            "(H5), unique", k, l);
        int v = -1;
        for (int i = 0; i < g->n_inputs && v < 0; i++)
            if (x->input && !strcmp(g->values[i].name, x->input))
                v = i;
        const kbv_input_def *in = v >= 0 ? &def->inputs[g->values[v].def_index] : NULL;
        bool is_float = in && kbv_dtype_is_float(in->dtype);
        if (!is_float || in->gen == KBV_GEN_SCALAR)
            return kbv_fail(KBV_ERR_INVALID, "%s: extra config %s: '%s' is not a float tensor "
                            "input of the problem", k, l, x->input ? x->input : "(null)");
        if (x->pattern != KBV_PATTERN_ALT_SIGNS || !x->what)
            return kbv_fail(KBV_ERR_INVALID, "%s: extra config %s: unknown pattern %d or no "
                            "description", k, l, (int)x->pattern);
    }
    return KBV_OK;
}

/* The weight a 1-D "X.bias" takes its fan_in from: "X.weight" ("weight" for
 * a bare "bias"); -1 when the name is no bias or there is no such param. */
static int weight_of_bias(const kbv_graph *g, int p)
{
    const char *name = g->values[g->n_inputs + p].name;
    size_t len = strlen(name);
    const char *leaf = strrchr(name, '.');
    leaf = leaf ? leaf + 1 : name;
    if (strcmp(leaf, "bias") != 0 || len + 3 > 128)
        return -1;
    char want[128];
    snprintf(want, sizeof want, "%.*sweight", (int)(leaf - name), name);
    for (int q = 0; q < g->n_params; q++)
        if (!strcmp(g->values[g->n_inputs + q].name, want))
            return q;
    return -1;
}

kbv_status kbv_param_fan_in(const kbv_graph *g, int p, int64_t *fan_in)
{
    char key[32];
    if (p < 0 || p >= g->n_params)
        return kbv_fail(KBV_ERR_INVALID, "fan_in: no param %d", p);
    const kbv_value *v = &g->values[g->n_inputs + p];
    const char *k = key_of(g->def, key, sizeof key);
    if (v->ndim == 1) {
        int w = weight_of_bias(g, p);
        if (w < 0 || g->values[g->n_inputs + w].ndim < 2)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: param '%s': a 1-D param's fan_in is its weight's, and there is "
                            "no 2-D or larger param named as its weight (X.bias takes "
                            "X.weight's)",
                            k, v->name);
        return kbv_param_fan_in(g, w, fan_in);
    }
    if (v->ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': a 0-dim param has no fan_in", k,
                        v->name);
    int64_t n = v->shape[1];
    for (int d = 2; d < v->ndim; d++)
        n *= v->shape[d];
    *fan_in = n;
    return KBV_OK;
}

/* The hidden size of an nn.LSTM/nn.GRU param "X.name": dim 1 of the param
 * "X.weight_hh_l0", which every such module has. */
static kbv_status rnn_hidden_of(const kbv_graph *g, int p, int64_t *hidden)
{
    char key[32], want[256];
    const kbv_value *v = &g->values[g->n_inputs + p];
    const char *k = key_of(g->def, key, sizeof key);
    const char *dot = strrchr(v->name, '.');
    int owner = dot ? (int)(dot - v->name) : 0;
    snprintf(want, sizeof want, "%.*s%sweight_hh_l0", owner, v->name, dot ? "." : "");
    for (int q = 0; q < g->n_params; q++) {
        const kbv_value *w = &g->values[g->n_inputs + q];
        if (strcmp(w->name, want) == 0 && w->ndim == 2 && w->shape[1] > 0) {
            *hidden = w->shape[1];
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_INVALID,
                    "%s: param '%s': an RNN param's bound is 1/sqrt(hidden), hidden from a 2-D "
                    "'%s', which the problem does not have",
                    k, v->name, want);
}

/* The window W (and the side S in tokens) of a Swin V2 buffer from its shape
 * (problem.h), packed as KBV_SWIN_GEOMETRY into *geometry. */
static kbv_status swin_geometry_of(const char *k, const kbv_param_def *pd, const kbv_value *v,
                                   int64_t *geometry)
{
    int64_t W = 0, S = 0;
    if (pd->init == KBV_INIT_SWIN_COORDS_TABLE) {
        if (v->ndim == 4 && v->shape[0] == 1 && v->shape[1] == v->shape[2] &&
            v->shape[1] % 2 == 1 && v->shape[3] == 2)
            W = (v->shape[1] + 1) / 2;
    } else {
        int64_t n = v->ndim >= 2 ? v->shape[v->ndim - 1] : 0;
        for (int64_t w = 1; w * w <= n; w++)
            if (w * w == n && v->shape[v->ndim - 2] == n)
                W = w;
        if (pd->init == KBV_INIT_SWIN_ATTN_MASK) {
            int64_t windows = v->ndim == 3 ? v->shape[0] : 0, per_row = 0;
            for (int64_t r = 1; r * r <= windows; r++)
                if (r * r == windows)
                    per_row = r;
            S = per_row * W;
            if (v->ndim != 3 || !(pd->value > 0.0 && pd->value < (double)W) ||
                pd->value != (double)(int64_t)pd->value)
                W = 0;
        } else if (v->ndim != 2) {
            W = 0;
        }
    }
    bool want_int = pd->init == KBV_INIT_SWIN_POSITION_INDEX;
    if (W < 2 || W > 0xffff || S > 0xffff || (pd->init == KBV_INIT_SWIN_ATTN_MASK && S < W) ||
        (want_int ? pd->dtype != KBV_I64 : pd->dtype != KBV_F32))
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': a Swin buffer of a shape, dtype or "
                        "shift it cannot have (problem.h)", k, pd->name);
    *geometry = KBV_SWIN_GEOMETRY(S, W);
    return KBV_OK;
}

/* A param's initialiser fits its dtype and shape; fan_in is derived and a
 * written one checked against it. */
static kbv_status check_init(const kbv_problem *def, kbv_graph *g, int p)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    kbv_value *v = &g->values[g->n_inputs + p];
    const kbv_param_def *pd = &def->params[v->def_index];
    bool is_float = kbv_dtype_is_float(pd->dtype);
    switch (pd->init) {
    case KBV_INIT_NONE:
    case KBV_INIT_ONES:
    case KBV_INIT_ZEROS:
        break;
    case KBV_INIT_UNIFORM_FAN_IN:
        KBV_TRY(kbv_param_fan_in(g, p, &v->fan_in));
        if (v->fan_in <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': fan_in %lld from its shape", k,
                            pd->name, (long long)v->fan_in);
        if (pd->fan_in != 0 && pd->fan_in != v->fan_in)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: param '%s': written fan_in %lld, but its shape gives %lld "
                            "(leave fan_in out: it is derived)",
                            k, pd->name, (long long)pd->fan_in, (long long)v->fan_in);
        break;
    case KBV_INIT_UNIFORM_HIDDEN:
        KBV_TRY(rnn_hidden_of(g, p, &v->fan_in));
        break;
    case KBV_INIT_RANDN:
    case KBV_INIT_CONST:
        break;
    case KBV_INIT_TRIL_ONES:
        /* the element function reads the square's side from fan_in */
        if (v->ndim < 2 || v->shape[v->ndim - 1] != v->shape[v->ndim - 2])
            return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': tril ones needs a square in its "
                            "last two dims", k, pd->name);
        v->fan_in = v->shape[v->ndim - 1];
        break;
    case KBV_INIT_XAVIER_UNIFORM:
        /* fan_in holds fan_in + fan_out, the sum the bound reads */
        if (v->ndim != 2 || v->shape[0] + v->shape[1] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': xavier_uniform_ is for a 2-D "
                            "weight here", k, pd->name);
        v->fan_in = v->shape[0] + v->shape[1];
        break;
    case KBV_INIT_SWIN_COORDS_TABLE:
    case KBV_INIT_SWIN_POSITION_INDEX:
    case KBV_INIT_SWIN_ATTN_MASK:
        KBV_TRY(swin_geometry_of(k, pd, v, &v->fan_in));
        break;
    case KBV_INIT_NORMAL:
        if (!(pd->value > 0.0))
            return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': normal initialiser with std %g",
                            k, pd->name, pd->value);
        break;
    default:
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': unknown initialiser %d", k, pd->name,
                        (int)pd->init);
    }
    bool drawn = pd->init == KBV_INIT_UNIFORM_FAN_IN || pd->init == KBV_INIT_RANDN ||
                 pd->init == KBV_INIT_CONST || pd->init == KBV_INIT_NORMAL ||
                 pd->init == KBV_INIT_UNIFORM_HIDDEN || pd->init == KBV_INIT_TRIL_ONES ||
                 pd->init == KBV_INIT_XAVIER_UNIFORM;
    if (drawn && !is_float)
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': a random or constant initialiser "
                        "needs a float dtype", k, pd->name);
    if (pd->init != KBV_INIT_UNIFORM_FAN_IN && pd->fan_in != 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': fan_in is for the uniform fan-in "
                        "initialiser only", k, pd->name);
    if (pd->init != KBV_INIT_CONST && pd->init != KBV_INIT_NORMAL &&
        pd->init != KBV_INIT_SWIN_ATTN_MASK && pd->value != 0.0)
        return kbv_fail(KBV_ERR_INVALID, "%s: param '%s': value is for the constant and "
                        "normal initialisers and the attention mask's shift only", k, pd->name);
    return KBV_OK;
}

/* A node's name for messages: its output's, or its first output's. */
static const char *node_name(const kbv_node_def *nd)
{
    const char *name = nd->n_outs > 0 && nd->outs ? nd->outs[0] : nd->out;
    return name ? name : "(null)";
}

/* Re-fails a shape-rule error with the problem and node prepended, keeping
 * the rule's own message. */
static kbv_status shape_error(const kbv_problem *def, const kbv_node_def *nd, kbv_status st)
{
    char key[32];
    return kbv_fail(st, "%s: node '%s' (%s): %s", key_of(def, key, sizeof key), node_name(nd),
                    kbv_op_table[nd->op].name, kbv_last_message());
}

static kbv_status add_node(const kbv_problem *def, kbv_graph *g, int index, int **arg_next)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    const kbv_node_def *nd = &def->nodes[index];
    const char *name = node_name(nd);
    if ((unsigned)nd->op >= KBV_OP_COUNT || !kbv_op_table[nd->op].shape)
        return kbv_fail(KBV_ERR_INVALID, "%s: node #%d ('%s'): unknown op %d", k, index,
                        name, (int)nd->op);
    const kbv_op_info *info = &kbv_op_table[nd->op];
    if (info->several_outputs != (nd->n_outs > 0) || nd->n_outs < 0 ||
        (nd->n_outs > 0 && !nd->outs))
        return kbv_fail(KBV_ERR_INVALID, "%s: node '%s' (%s): %s", k, name, info->name,
                        info->several_outputs ? "the op has several outputs: name them in outs"
                                              : "the op has one output, out");
    kbv_node *node = &g->nodes[g->n_nodes];
    memset(node, 0, sizeof *node);
    node->op = nd->op;
    node->def = nd;
    node->n_args = nd->n_args;
    node->n_outs = nd->n_outs > 0 ? nd->n_outs : 1;
    node->args = *arg_next;
    int min_args = info->min_args ? info->min_args : info->n_args;
    /* n_args < 0 in the table: any count from min_args (cat of N tensors) */
    bool too_many = info->n_args >= 0 && node->n_args > info->n_args;
    if (node->n_args < min_args || too_many || (node->n_args > 0 && !nd->args))
        return kbv_fail(KBV_ERR_INVALID, "%s: node '%s' (%s): %d operands given, %d%s expected",
                        k, name, info->name, node->n_args,
                        info->n_args >= 0 ? info->n_args : min_args,
                        info->n_args < 0 ? " or more"
                                         : min_args < info->n_args ? " or fewer" : "");
    const kbv_value **args = node->n_args ? malloc(sizeof *args * (size_t)node->n_args) : NULL;
    if (node->n_args && !args)
        return kbv_fail(KBV_ERR_NOMEM, "%s: node '%s': operand list", k, name);
    kbv_status st = KBV_OK;
    for (int a = 0; a < node->n_args; a++) {
        int v = nd->args[a] ? find_value(g, nd->args[a]) : -1;
        if (v < 0) {
            st = kbv_fail(KBV_ERR_INVALID,
                          "%s: node '%s' (%s): unknown operand '%s' (operands name inputs, "
                          "params or earlier nodes' outputs)",
                          k, name, info->name, nd->args[a] ? nd->args[a] : "(null)");
            goto done;
        }
        node->args[a] = v;
        args[a] = &g->values[v];
    }
    kbv_value *out = NULL;
    for (int j = 0; j < node->n_outs; j++) {
        kbv_value *piece = NULL;
        KBV_TRY_GOTO(add_value(def, g, "node", nd->n_outs > 0 ? nd->outs[j] : nd->out,
                               KBV_VALUE_NODE, index, &piece),
                     st, done);
        piece->out_index = j;
        if (j == 0)
            out = piece;
    }
    st = info->shape_in ? info->shape_in(g, nd, args, out) : info->shape(nd, args, out);
    if (st != KBV_OK) {
        st = shape_error(def, nd, st);
        goto done;
    }
    node->out = (int)(out - g->values);
    if (nd->in_place && nd->n_outs > 0) {
        st = kbv_fail(KBV_ERR_INVALID, "%s: node '%s' (%s): a node with several outputs has "
                      "no in-place form", k, name, info->name);
        goto done;
    }
    if (nd->in_place) {
        const kbv_value *over = args[0];
        bool same = out->dtype == over->dtype && out->ndim == over->ndim;
        for (int d = 0; same && d < out->ndim; d++)
            same = out->shape[d] == over->shape[d];
        if (!info->torch_inplace || over->kind != KBV_VALUE_NODE || !same) {
            st = kbv_fail(KBV_ERR_INVALID,
                          "%s: node '%s' (%s): in place needs an op with an in-place form, "
                          "over an intermediate of the result's shape and dtype ('%s')",
                          k, nd->out, info->name, over->name);
            goto done;
        }
    }
    for (int a = 0; a < node->n_args; a++)
        g->values[node->args[a]].last_use = index;
    *arg_next += node->n_args;
    g->n_nodes++;
done:
    free(args);
    return st;
}

static kbv_status mark_outputs(const kbv_problem *def, kbv_graph *g)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    if (def->n_outputs == 0) {
        g->outputs[0] = g->nodes[g->n_nodes - 1].out;
        g->n_outputs = 1;
    }
    for (int o = 0; o < def->n_outputs; o++) {
        int v = def->outputs[o] ? find_value(g, def->outputs[o]) : -1;
        if (v < 0 || g->values[v].kind != KBV_VALUE_NODE)
            return kbv_fail(KBV_ERR_INVALID, "%s: output '%s' is not the output of a node", k,
                            def->outputs[o] ? def->outputs[o] : "(null)");
        if (g->values[v].is_output)
            return kbv_fail(KBV_ERR_INVALID, "%s: output '%s' is listed twice", k,
                            def->outputs[o]);
        g->values[v].is_output = true;
        g->outputs[g->n_outputs++] = v;
    }
    for (int o = 0; o < g->n_outputs; o++)
        g->values[g->outputs[o]].is_output = true;
    return KBV_OK;
}

/* An in-place node overwrites its first operand: PyTorch's program reads
 * that value nowhere after, and nor may the graph (nor return it). */
static kbv_status check_in_place(const kbv_problem *def, const kbv_graph *g)
{
    char key[32];
    for (int n = 0; n < g->n_nodes; n++) {
        const kbv_node *node = &g->nodes[n];
        if (!node->def->in_place)
            continue;
        const kbv_value *over = &g->values[node->args[0]];
        if (over->last_use != n || over->is_output)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: node '%s' overwrites '%s' in place, which is read later or "
                            "returned",
                            key_of(def, key, sizeof key), g->values[node->out].name, over->name);
        /* nor may it write into an input or a param through views of them */
        const kbv_value *base = over;
        while (base->kind == KBV_VALUE_NODE) {
            const kbv_node *made = &g->nodes[base->def_index];
            if (!kbv_op_table[made->op].is_view && !made->def->in_place)
                break;
            base = &g->values[made->args[0]];
        }
        if (base->kind != KBV_VALUE_NODE)
            return kbv_fail(KBV_ERR_INVALID,
                            "%s: node '%s' would write in place into '%s' through '%s'",
                            key_of(def, key, sizeof key), g->values[node->out].name, base->name,
                            over->name);
    }
    return KBV_OK;
}

void kbv_graph_free(kbv_graph *g)
{
    if (!g)
        return;
    free(g->dims);
    free(g->values);
    free(g->nodes);
    free(g->outputs);
    free(g->arg_pool);
    memset(g, 0, sizeof *g);
}

int kbv_graph_max_args(const kbv_graph *g)
{
    int most = 0;
    for (int n = 0; n < g->n_nodes; n++)
        if (g->nodes[n].n_args > most)
            most = g->nodes[n].n_args;
    return most;
}

/* Room for def's values, nodes, operands and outputs, zeroed. */
static kbv_status allocate(const kbv_problem *def, kbv_graph *g)
{
    char key[32];
    if (def->n_dims < 0 || def->n_inputs < 0 || def->n_params < 0 || def->n_nodes < 0 ||
        def->n_outputs < 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: negative counts in the problem",
                        key_of(def, key, sizeof key));
    size_t n_args = 0, n_node_values = 0;
    for (int n = 0; n < def->n_nodes; n++) {
        n_args += def->nodes[n].n_args > 0 ? (size_t)def->nodes[n].n_args : 0;
        n_node_values += def->nodes[n].n_outs > 0 ? (size_t)def->nodes[n].n_outs : 1;
    }
    size_t n_values = (size_t)def->n_inputs + (size_t)def->n_params + n_node_values;
    g->dims = calloc((size_t)def->n_dims + 1, sizeof *g->dims);
    g->values = calloc(n_values + 1, sizeof *g->values);
    g->nodes = calloc((size_t)def->n_nodes + 1, sizeof *g->nodes);
    g->outputs = calloc((size_t)def->n_outputs + 1, sizeof *g->outputs);
    g->arg_pool = calloc(n_args + 1, sizeof *g->arg_pool);
    if (!g->dims || !g->values || !g->nodes || !g->outputs || !g->arg_pool)
        return kbv_fail(KBV_ERR_NOMEM, "%s: graph of %zu values", key_of(def, key, sizeof key),
                        n_values);
    return KBV_OK;
}

/* Everything of kbv_graph_build_dims after the allocation. */
static kbv_status resolve(const kbv_problem *def, const int64_t *dims, kbv_graph *g)
{
    char key[32];
    const char *k = key_of(def, key, sizeof key);
    g->n_dims = def->n_dims;
    for (int d = 0; d < g->n_dims; d++) {
        if (!is_identifier(def->dims[d].name, false))
            return kbv_fail(KBV_ERR_INVALID, "%s: dim #%d: '%s' is not a valid Python name", k, d,
                            def->dims[d].name ? def->dims[d].name : "(null)");
        for (int e = 0; e < d; e++)
            if (!strcmp(def->dims[e].name, def->dims[d].name))
                return kbv_fail(KBV_ERR_INVALID, "%s: dim '%s' is defined twice", k,
                                def->dims[d].name);
        if (dims[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: dim '%s' = %lld: sizes must be positive", k,
                            def->dims[d].name, (long long)dims[d]);
        g->dims[d] = dims[d];
    }

    char owner[160];
    for (int i = 0; i < def->n_inputs; i++) {
        const kbv_input_def *in = &def->inputs[i];
        kbv_value *v = NULL;
        KBV_TRY(add_value(def, g, "input", in->name, KBV_VALUE_INPUT, i, &v));
        KBV_TRY(check_dtype(def, "input", in->name, in->dtype));
        snprintf(owner, sizeof owner, "input '%s'", in->name);
        v->dtype = in->dtype;
        KBV_TRY(resolve_shape(def, g, owner, in->shape, v));
        KBV_TRY(check_input(def, in, v));
        g->n_inputs++;
    }
    KBV_TRY(check_hidden(def, g));
    for (int p = 0; p < def->n_params; p++) {
        const kbv_param_def *pd = &def->params[p];
        kbv_value *v = NULL;
        KBV_TRY(add_value(def, g, "param", pd->name, KBV_VALUE_PARAM, p, &v));
        KBV_TRY(check_dtype(def, "param", pd->name, pd->dtype));
        snprintf(owner, sizeof owner, "param '%s'", pd->name);
        v->dtype = pd->dtype;
        KBV_TRY(resolve_shape(def, g, owner, pd->shape, v));
        g->n_params++;
    }
    for (int p = 0; p < g->n_params; p++)
        KBV_TRY(check_init(def, g, p));
    int *arg_next = g->arg_pool;
    for (int n = 0; n < def->n_nodes; n++)
        KBV_TRY(add_node(def, g, n, &arg_next));
    if (g->n_nodes == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: the problem has no nodes", k);
    KBV_TRY(mark_outputs(def, g));
    KBV_TRY(check_in_place(def, g));
    return KBV_OK;
}

kbv_status kbv_graph_build_dims(const kbv_problem *def, const int64_t *dims, kbv_graph *g)
{
    if (!def || !dims || !g)
        return kbv_fail(KBV_ERR_INVALID, "kbv_graph_build_dims: NULL argument");
    kbv_graph_free(g);
    g->def = def;
    kbv_status st = allocate(def, g);
    if (st == KBV_OK)
        st = resolve(def, dims, g);
    if (st != KBV_OK) {
        kbv_graph_free(g);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    return KBV_OK;
}

kbv_status kbv_graph_build(const kbv_problem *def, kbv_size size, kbv_graph *g)
{
    if (!def)
        return kbv_fail(KBV_ERR_INVALID, "kbv_graph_build: no problem");
    int64_t *dims = calloc((size_t)(def->n_dims > 0 ? def->n_dims : 0) + 1, sizeof *dims);
    if (!dims)
        return kbv_fail(KBV_ERR_NOMEM, "kbv_graph_build: dims");
    for (int d = 0; d < def->n_dims; d++)
        dims[d] = size == KBV_SIZE_SMALL ? def->dims[d].small : def->dims[d].full;
    kbv_status st = kbv_graph_build_dims(def, dims, g);
    free(dims);
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    return KBV_OK;
}

int64_t kbv_value_numel(const kbv_value *v)
{
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++)
        n *= v->shape[d];
    return n;
}

void kbv_value_tensor(const kbv_value *v, kbv_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->data = NULL;
    t->dtype = v->dtype;
    t->ndim = v->ndim;
    t->name = v->name;
    int64_t stride = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        t->shape[d] = v->shape[d];
        t->stride[d] = stride;
        stride *= v->shape[d];
    }
}

double kbv_graph_flops(const kbv_graph *g)
{
    double total = 0.0;
    for (int n = 0; n < g->n_nodes; n++)
        total += kbv_op_table[g->nodes[n].op].flops(g, &g->nodes[n]);
    return total;
}

double kbv_graph_min_bytes_stored(const kbv_graph *g, kbv_dtype float_dtype)
{
    double total = 0.0;
    for (int v = 0; v < g->n_values; v++) {
        const kbv_value *val = &g->values[v];
        if (val->kind == KBV_VALUE_NODE && !val->is_output)
            continue;
        bool scalar = val->kind == KBV_VALUE_INPUT &&
                      g->def->inputs[val->def_index].gen == KBV_GEN_SCALAR;
        bool is_float = val->dtype == KBV_F32 || val->dtype == KBV_F64 ||
                        val->dtype == KBV_F16 || val->dtype == KBV_BF16;
        kbv_dtype dt = is_float && !scalar ? float_dtype : val->dtype;
        total += (double)kbv_value_numel(val) * (double)kbv_dtype_size(dt);
    }
    return total;
}

double kbv_graph_min_bytes(const kbv_graph *g)
{
    double total = 0.0;
    for (int v = 0; v < g->n_values; v++) {
        const kbv_value *val = &g->values[v];
        if (val->kind != KBV_VALUE_NODE || val->is_output)
            total += (double)kbv_value_numel(val) * (double)kbv_dtype_size(val->dtype);
    }
    return total;
}
