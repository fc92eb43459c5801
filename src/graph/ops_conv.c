/* Convolution and pooling ops: the keyword-argument parser, PyTorch's
 * output-size formulas and checks, and FLOP counts (see ops_conv.h). */
#include "graph/ops_conv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

/* ------------------------------------------------------------ op kinds */

bool kbv_window_op(kbv_op op, kbv_window_kind *kind, int *spatial, bool *has_bias)
{
    static const struct {
        kbv_op op;
        kbv_window_kind kind;
        int spatial;
        bool bias;
    } ops[] = {
        {KBV_OP_CONV1D, KBV_WINDOW_CONV, 1, false},
        {KBV_OP_CONV2D, KBV_WINDOW_CONV, 2, false},
        {KBV_OP_CONV3D, KBV_WINDOW_CONV, 3, false},
        {KBV_OP_CONV1D_BIAS, KBV_WINDOW_CONV, 1, true},
        {KBV_OP_CONV2D_BIAS, KBV_WINDOW_CONV, 2, true},
        {KBV_OP_CONV3D_BIAS, KBV_WINDOW_CONV, 3, true},
        {KBV_OP_CONV_TRANSPOSE1D, KBV_WINDOW_CONV_TRANSPOSE, 1, false},
        {KBV_OP_CONV_TRANSPOSE2D, KBV_WINDOW_CONV_TRANSPOSE, 2, false},
        {KBV_OP_CONV_TRANSPOSE3D, KBV_WINDOW_CONV_TRANSPOSE, 3, false},
        {KBV_OP_CONV_TRANSPOSE1D_BIAS, KBV_WINDOW_CONV_TRANSPOSE, 1, true},
        {KBV_OP_CONV_TRANSPOSE2D_BIAS, KBV_WINDOW_CONV_TRANSPOSE, 2, true},
        {KBV_OP_CONV_TRANSPOSE3D_BIAS, KBV_WINDOW_CONV_TRANSPOSE, 3, true},
        {KBV_OP_MAX_POOL1D, KBV_WINDOW_MAX_POOL, 1, false},
        {KBV_OP_MAX_POOL2D, KBV_WINDOW_MAX_POOL, 2, false},
        {KBV_OP_MAX_POOL3D, KBV_WINDOW_MAX_POOL, 3, false},
        {KBV_OP_AVG_POOL1D, KBV_WINDOW_AVG_POOL, 1, false},
        {KBV_OP_AVG_POOL2D, KBV_WINDOW_AVG_POOL, 2, false},
        {KBV_OP_AVG_POOL3D, KBV_WINDOW_AVG_POOL, 3, false},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op) {
            *kind = ops[i].kind;
            *spatial = ops[i].spatial;
            *has_bias = ops[i].bias;
            return true;
        }
    return false;
}

static const char *op_name(kbv_op op)
{
    return (unsigned)op < KBV_OP_COUNT && kbv_op_table[op].name ? kbv_op_table[op].name : "op";
}

/* -------------------------------------------------------------- parser */

typedef enum field {
    F_KERNEL,
    F_STRIDE,
    F_PADDING,
    F_DILATION,
    F_OUTPUT_PADDING,
    F_GROUPS,
    F_CEIL_MODE,
    F_COUNT_INCLUDE_PAD,
    F_COUNT
} field;

static const char *const field_names[F_COUNT] = {
    "kernel_size", "stride",    "padding",   "dilation",
    "output_padding", "groups", "ceil_mode", "count_include_pad",
};

/* The keywords each kind accepts: those of its PyTorch function that kbv
 * implements (return_indices and divisor_override are not among them). */
static bool accepts(kbv_window_kind kind, field f)
{
    switch (kind) {
    case KBV_WINDOW_CONV:
        return f == F_STRIDE || f == F_PADDING || f == F_DILATION || f == F_GROUPS;
    case KBV_WINDOW_CONV_TRANSPOSE:
        return f == F_STRIDE || f == F_PADDING || f == F_DILATION || f == F_GROUPS ||
               f == F_OUTPUT_PADDING;
    case KBV_WINDOW_MAX_POOL:
        return f == F_KERNEL || f == F_STRIDE || f == F_PADDING || f == F_DILATION ||
               f == F_CEIL_MODE;
    case KBV_WINDOW_AVG_POOL:
        return f == F_KERNEL || f == F_STRIDE || f == F_PADDING || f == F_CEIL_MODE ||
               f == F_COUNT_INCLUDE_PAD;
    }
    return false;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A non-negative decimal integer at *pp. */
static bool parse_int(const char **pp, int64_t *out)
{
    const char *p = *pp;
    if (!isdigit((unsigned char)*p))
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno || end == p)
        return false;
    *out = v;
    *pp = end;
    return true;
}

/* One value: an integer, a tuple of integers, True or False. */
typedef struct value {
    int n;             /* integers read; 0 for a boolean */
    bool is_tuple, is_bool, truth;
    int64_t v[KBV_WINDOW_MAX_SPATIAL];
} value;

static kbv_status parse_value(const char *op, const char *key, const char **pp, value *val)
{
    const char *p = *pp;
    memset(val, 0, sizeof *val);
    if (!strncmp(p, "True", 4) || !strncmp(p, "False", 5)) {
        val->is_bool = true;
        val->truth = p[0] == 'T';
        p += val->truth ? 4 : 5;
    } else if (*p == '(') {
        val->is_tuple = true;
        p = skip_space(p + 1);
        while (*p != ')') {
            if (val->n == KBV_WINDOW_MAX_SPATIAL)
                return kbv_fail(KBV_ERR_INVALID, "%s: %s has more than %d entries", op, key,
                                KBV_WINDOW_MAX_SPATIAL);
            if (!parse_int(&p, &val->v[val->n]))
                return kbv_fail(KBV_ERR_INVALID, "%s: %s: '%s' is not a tuple of non-negative "
                                "integers", op, key, *pp);
            val->n++;
            p = skip_space(p);
            if (*p == ',')
                p = skip_space(p + 1);
            else if (*p != ')')
                return kbv_fail(KBV_ERR_INVALID, "%s: %s: expected ',' or ')' in '%s'", op, key,
                                *pp);
        }
        p++;
        if (val->n == 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: %s is an empty tuple", op, key);
    } else if (parse_int(&p, &val->v[0])) {
        val->n = 1;
    } else {
        return kbv_fail(KBV_ERR_INVALID, "%s: %s: '%s' is not a non-negative integer, a tuple "
                        "of them, True or False", op, key, p);
    }
    *pp = p;
    return KBV_OK;
}

/* Stores val into field f of w. */
static kbv_status assign(const char *op, kbv_window *w, field f, const value *val)
{
    const char *key = field_names[f];
    bool want_bool = f == F_CEIL_MODE || f == F_COUNT_INCLUDE_PAD;
    if (want_bool != val->is_bool)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s takes %s", op, key,
                        want_bool ? "True or False" : "integers");
    if (f == F_CEIL_MODE) {
        w->ceil_mode = val->truth;
        return KBV_OK;
    }
    if (f == F_COUNT_INCLUDE_PAD) {
        w->count_include_pad = val->truth;
        return KBV_OK;
    }
    if (f == F_GROUPS) {
        if (val->is_tuple)
            return kbv_fail(KBV_ERR_INVALID, "%s: groups is one integer", op);
        w->groups = val->v[0];
        return KBV_OK;
    }
    if (val->is_tuple && val->n != w->spatial)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s has %d entries, expected one integer or %d", op,
                        key, val->n, w->spatial);
    int64_t *dst = f == F_KERNEL ? w->kernel
                   : f == F_STRIDE ? w->stride
                   : f == F_PADDING ? w->padding
                   : f == F_DILATION ? w->dilation
                                     : w->output_padding;
    for (int d = 0; d < w->spatial; d++)
        dst[d] = val->is_tuple ? val->v[d] : val->v[0];
    return KBV_OK;
}

kbv_status kbv_window_parse(kbv_op op, const char *s, kbv_window *w)
{
    const char *name = op_name(op);
    memset(w, 0, sizeof *w);
    if (!kbv_window_op(op, &w->kind, &w->spatial, &w->has_bias))
        return kbv_fail(KBV_ERR_INVALID, "%s is not a convolution or pooling op", name);
    if (!s)
        return kbv_fail(KBV_ERR_INVALID, "%s: no keyword arguments: write PyTorch's in the "
                        "node's s, e.g. \"stride=1, padding=0\"", name);
    for (int d = 0; d < w->spatial; d++) {
        w->stride[d] = 1;
        w->dilation[d] = 1;
    }
    w->groups = 1;
    w->count_include_pad = true;

    bool seen[F_COUNT] = {false};
    const char *p = skip_space(s);
    while (*p) {
        const char *key = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t len = (size_t)(p - key);
        field f = F_COUNT;
        for (int k = 0; k < F_COUNT; k++)
            if (strlen(field_names[k]) == len && !strncmp(key, field_names[k], len))
                f = (field)k;
        if (f == F_COUNT || !accepts(w->kind, f))
            return kbv_fail(KBV_ERR_INVALID, "%s: keyword '%.*s' is not supported (in \"%s\")",
                            name, (int)(len ? len : 1), key, s);
        if (seen[f])
            return kbv_fail(KBV_ERR_INVALID, "%s: keyword %s given twice (in \"%s\")", name,
                            field_names[f], s);
        seen[f] = true;
        p = skip_space(p);
        if (*p != '=')
            return kbv_fail(KBV_ERR_INVALID, "%s: expected '=' after %s (in \"%s\")", name,
                            field_names[f], s);
        p = skip_space(p + 1);
        value val;
        KBV_TRY(parse_value(name, field_names[f], &p, &val));
        KBV_TRY(assign(name, w, f, &val));
        p = skip_space(p);
        if (*p == ',')
            p = skip_space(p + 1);
        else if (*p)
            return kbv_fail(KBV_ERR_INVALID, "%s: expected ',' after %s (in \"%s\")", name,
                            field_names[f], s);
    }

    bool pool = w->kind == KBV_WINDOW_MAX_POOL || w->kind == KBV_WINDOW_AVG_POOL;
    if (pool && !seen[F_KERNEL])
        return kbv_fail(KBV_ERR_INVALID, "%s: kernel_size is required", name);
    if (pool && !seen[F_STRIDE]) /* stride=None: the kernel size */
        memcpy(w->stride, w->kernel, sizeof w->stride);
    for (int d = 0; d < w->spatial; d++) {
        if (pool && w->kernel[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: kernel size should be greater than zero", name);
        if (w->stride[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: stride should be greater than zero", name);
        if (w->dilation[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: dilation should be greater than zero", name);
        if (pool && w->padding[d] > w->kernel[d] / 2)
            return kbv_fail(KBV_ERR_INVALID, "%s: pad should be at most half of kernel size, "
                            "but got pad=%lld and kernel_size=%lld", name,
                            (long long)w->padding[d], (long long)w->kernel[d]);
        if (w->kind == KBV_WINDOW_CONV_TRANSPOSE && w->output_padding[d] >= w->stride[d] &&
            w->output_padding[d] >= w->dilation[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: output padding must be smaller than either "
                            "stride or dilation, but got output_padding=%lld, stride=%lld, "
                            "dilation=%lld", name, (long long)w->output_padding[d],
                            (long long)w->stride[d], (long long)w->dilation[d]);
    }
    if (w->groups <= 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: groups should be greater than zero", name);
    return KBV_OK;
}

/* --------------------------------------------------------- output sizes */

/* Floor division for a possibly negative numerator (PyTorch's div_rtn). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t kbv_conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil)
{
    return floor_div(in + 2 * pad - dil * (k - 1) - 1, stride) + 1;
}

int64_t kbv_conv_transpose_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad,
                                    int64_t dil, int64_t out_pad)
{
    return (in - 1) * stride - 2 * pad + dil * (k - 1) + out_pad + 1;
}

/* pooling_output_shape: with ceil_mode the last window must start inside
 * the input or its left padding. */
int64_t kbv_pool_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                          bool ceil_mode)
{
    int64_t out = floor_div(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0),
                            stride) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad)
        out--;
    return out;
}

/* ---------------------------------------------------------- shape rule */

static kbv_status shape_pool(const char *name, const kbv_window *w, const kbv_value *x,
                             kbv_value *out)
{
    char dx[160];
    if (x->ndim != w->spatial + 1 && x->ndim != w->spatial + 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: expected a %d-d or %d-d input, got %s", name,
                        w->spatial + 1, w->spatial + 2, kbv_value_describe(x, dx, sizeof dx));
    out->ndim = x->ndim;
    memcpy(out->shape, x->shape, sizeof out->shape);
    int first = x->ndim - w->spatial;
    for (int d = 0; d < w->spatial; d++) {
        int64_t in = x->shape[first + d];
        int64_t o = kbv_pool_out_size(in, w->kernel[d], w->stride[d], w->padding[d],
                                      w->dilation[d], w->ceil_mode);
        if (o < 1)
            return kbv_fail(KBV_ERR_INVALID, "%s: input %s gives output size %lld along dim %d: "
                            "too small", name, kbv_value_describe(x, dx, sizeof dx), (long long)o,
                            first + d);
        out->shape[first + d] = o;
    }
    return KBV_OK;
}

static kbv_status shape_conv(const char *name, const kbv_window *w, const kbv_value *x,
                             const kbv_value *wt, kbv_value *out)
{
    char dx[160], dw[160];
    bool transposed = w->kind == KBV_WINDOW_CONV_TRANSPOSE;
    if (x->ndim != w->spatial + 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: expected a %d-d input [N, C, ...], got %s", name,
                        w->spatial + 2, kbv_value_describe(x, dx, sizeof dx));
    if (wt->ndim != w->spatial + 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: expected a %d-d weight, got %s", name,
                        w->spatial + 2, kbv_value_describe(wt, dw, sizeof dw));
    if (wt->dtype != x->dtype)
        return kbv_fail(KBV_ERR_INVALID, "%s: input and weight dtypes differ (%s, %s)", name,
                        kbv_dtype_name(x->dtype), kbv_dtype_name(wt->dtype));
    int64_t g = w->groups, cin = x->shape[1], cout;
    if (!transposed) {
        if (wt->shape[0] % g != 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: %lld output channels are not divisible by "
                            "groups=%lld", name, (long long)wt->shape[0], (long long)g);
        if (cin != wt->shape[1] * g)
            return kbv_fail(KBV_ERR_INVALID, "%s: given groups=%lld, weight %s expects the "
                            "input to have %lld channels, but %s has %lld", name, (long long)g,
                            kbv_value_describe(wt, dw, sizeof dw), (long long)(wt->shape[1] * g),
                            kbv_value_describe(x, dx, sizeof dx), (long long)cin);
        cout = wt->shape[0];
    } else {
        if (cin != wt->shape[0])
            return kbv_fail(KBV_ERR_INVALID, "%s: weight %s expects the input to have %lld "
                            "channels, but %s has %lld", name, kbv_value_describe(wt, dw, sizeof dw),
                            (long long)wt->shape[0], kbv_value_describe(x, dx, sizeof dx), (long long)cin);
        if (cin % g != 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: %lld input channels are not divisible by "
                            "groups=%lld", name, (long long)cin, (long long)g);
        cout = wt->shape[1] * g;
    }
    out->ndim = x->ndim;
    out->shape[0] = x->shape[0];
    out->shape[1] = cout;
    for (int d = 0; d < w->spatial; d++) {
        int64_t in = x->shape[2 + d], k = wt->shape[2 + d];
        int64_t o = transposed ? kbv_conv_transpose_out_size(in, k, w->stride[d], w->padding[d],
                                                             w->dilation[d], w->output_padding[d])
                               : kbv_conv_out_size(in, k, w->stride[d], w->padding[d],
                                                   w->dilation[d]);
        if (o < 1)
            return kbv_fail(KBV_ERR_INVALID, "%s: input %s and weight %s give output size %lld "
                            "along dim %d: too small", name, kbv_value_describe(x, dx, sizeof dx),
                            kbv_value_describe(wt, dw, sizeof dw), (long long)o, 2 + d);
        out->shape[2 + d] = o;
    }
    return KBV_OK;
}

kbv_status kbv_shape_window(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const char *name = op_name(n->op);
    char dx[160];
    kbv_window w;
    KBV_TRY(kbv_window_parse(n->op, n->s, &w));
    const kbv_value *x = args[0];
    if (!kbv_dtype_is_float(x->dtype))
        return kbv_fail(KBV_ERR_INVALID, "%s: input %s is %s, expected a float tensor", name,
                        kbv_value_describe(x, dx, sizeof dx), kbv_dtype_name(x->dtype));
    out->dtype = x->dtype;
    if (w.kind == KBV_WINDOW_MAX_POOL || w.kind == KBV_WINDOW_AVG_POOL) {
        KBV_TRY(shape_pool(name, &w, x, out));
        return KBV_OK;
    }
    KBV_TRY(shape_conv(name, &w, x, args[1], out));
    if (w.has_bias) {
        const kbv_value *b = args[2];
        if (b->ndim != 1 || b->shape[0] != out->shape[1] || b->dtype != x->dtype)
            return kbv_fail(KBV_ERR_INVALID, "%s: bias %s should be 1-d of %lld %s elements",
                            name, kbv_value_describe(b, dx, sizeof dx), (long long)out->shape[1],
                            kbv_dtype_name(x->dtype));
    }
    return KBV_OK;
}

/* ------------------------------------------------------------------ FLOPs */

static double numel(const kbv_value *v)
{
    double n = 1.0;
    for (int d = 0; d < v->ndim; d++)
        n *= (double)v->shape[d];
    return n;
}

/* Convolutions: 2 per multiply-add, every weight tap counted (a standard
 * conv does out * C_in/groups * prod(k) of them; a transposed one scatters
 * every input element through C_out/groups * prod(k) taps), plus one per
 * output element for a bias. Max pooling: one comparison per tap; average
 * pooling: one addition per tap and a division. */
double kbv_flops_window(const kbv_graph *g, const kbv_node *n)
{
    kbv_window_kind kind;
    int spatial;
    bool bias;
    if (!kbv_window_op(n->op, &kind, &spatial, &bias))
        return 0.0;
    const kbv_value *x = &g->values[n->args[0]], *y = &g->values[n->out];
    double out = numel(y);
    if (kind == KBV_WINDOW_MAX_POOL || kind == KBV_WINDOW_AVG_POOL) {
        kbv_window w;
        if (kbv_window_parse(n->op, n->def->s, &w) != KBV_OK)
            return 0.0;
        double taps = 1.0;
        for (int d = 0; d < w.spatial; d++)
            taps *= (double)w.kernel[d];
        return kind == KBV_WINDOW_MAX_POOL ? out * taps : out * (taps + 1.0);
    }
    const kbv_value *wt = &g->values[n->args[1]];
    /* weight [C_out, C_in/g, *k] or, transposed, [C_in, C_out/g, *k]: its
     * per-output-element (per-input-element) taps are numel / shape[0] */
    double taps_per_channel = numel(wt) / (double)wt->shape[0];
    double macs = kind == KBV_WINDOW_CONV ? out * taps_per_channel : numel(x) * taps_per_channel;
    return 2.0 * macs + (bias ? out : 0.0);
}
