/* Adaptive average pooling: the output_size attribute, the shape rule and
 * the FLOP count. PyTorch's windows: output index i along a dim of `in`
 * elements averages [floor(i * in / out), ceil((i + 1) * in / out)), so
 * windows overlap where out does not divide in. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

static int spatial_of(kbv_op op)
{
    switch (op) {
    case KBV_OP_ADAPTIVE_AVG_POOL1D: return 1;
    case KBV_OP_ADAPTIVE_AVG_POOL2D: return 2;
    case KBV_OP_ADAPTIVE_AVG_POOL3D: return 3;
    default: return 0;
    }
}

static const char *skip_space(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* A positive integer or None (0) at *pp. */
static bool parse_size(const char **pp, int64_t *out)
{
    const char *p = *pp;
    if (!strncmp(p, "None", 4)) {
        *out = 0;
        *pp = p + 4;
        return true;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno || end == p || v <= 0)
        return false;
    *out = v;
    *pp = end;
    return true;
}

kbv_status kbv_adaptive_parse(kbv_op op, const char *s, kbv_adaptive *a)
{
    const char *name = kbv_op_table[op].name;
    memset(a, 0, sizeof *a);
    a->spatial = spatial_of(op);
    if (!a->spatial)
        return kbv_fail(KBV_ERR_INVALID, "%s is not an adaptive pooling op", name);
    static const char key[] = "output_size";
    const char *p = s ? skip_space(s) : "";
    if (strncmp(p, key, sizeof key - 1) != 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: attribute s must be \"output_size=...\", got '%s'",
                        name, s ? s : "(null)");
    p = skip_space(p + sizeof key - 1);
    if (*p != '=')
        return kbv_fail(KBV_ERR_INVALID, "%s: '%s': expected '=' after output_size", name, s);
    p = skip_space(p + 1);
    bool ok = true;
    if (*p == '(') {
        p = skip_space(p + 1);
        int n = 0;
        while (ok && *p != ')') {
            ok = n < a->spatial && parse_size(&p, &a->out[n]);
            n++;
            p = skip_space(p);
            if (ok && *p == ',')
                p = skip_space(p + 1);
            else
                ok = ok && *p == ')';
        }
        ok = ok && n == a->spatial;
        if (ok)
            p = skip_space(p + 1);
    } else {
        int64_t v = 0;
        ok = parse_size(&p, &v) && v > 0;
        for (int d = 0; d < a->spatial; d++)
            a->out[d] = v;
        p = skip_space(p);
    }
    if (!ok || *p != '\0')
        return kbv_fail(KBV_ERR_INVALID,
                        "%s: '%s': output_size is a positive integer or a tuple of %d positive "
                        "integers or None",
                        name, s, a->spatial);
    return KBV_OK;
}

/* a is [N, C, *spatial] or [C, *spatial]. */
kbv_status kbv_shape_adaptive_pool(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out)
{
    const kbv_value *x = args[0];
    const char *name = kbv_op_table[n->op].name;
    char dx[160];
    kbv_adaptive ad;
    KBV_TRY(kbv_adaptive_parse(n->op, n->s, &ad));
    if (!kbv_dtype_is_float(x->dtype))
        return kbv_fail(KBV_ERR_INVALID, "%s: %s must be a float tensor", name,
                        kbv_value_describe(x, dx, sizeof dx));
    if (x->ndim != ad.spatial + 1 && x->ndim != ad.spatial + 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: input %s is not [N, C, *%d spatial] or [C, ...]",
                        name, kbv_value_describe(x, dx, sizeof dx), ad.spatial);
    int first = x->ndim - ad.spatial;
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] <= 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: input %s has an empty dim", name,
                            kbv_value_describe(x, dx, sizeof dx));
    out->dtype = x->dtype;
    out->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        int k = d - first;
        out->shape[d] = k < 0 || ad.out[k] == 0 ? x->shape[d] : ad.out[k];
    }
    return KBV_OK;
}

/* One add per element of every window (windows overlap where the sizes do
 * not divide) and one division per output. */
double kbv_flops_adaptive_pool(const kbv_graph *g, const kbv_node *n)
{
    const kbv_value *x = &g->values[n->args[0]], *y = &g->values[n->out];
    int spatial = spatial_of(n->op), first = x->ndim - spatial;
    double planes = 1.0, window_sum = 1.0;
    for (int d = 0; d < first; d++)
        planes *= (double)x->shape[d];
    for (int d = first; d < x->ndim; d++) {
        int64_t in = x->shape[d], o = y->shape[d], total = 0;
        for (int64_t i = 0; i < o; i++)
            total += kbv_adaptive_end(i, in, o) - kbv_adaptive_start(i, in, o);
        window_sum *= (double)total;
    }
    return planes * window_sum + (double)kbv_value_numel(y);
}
