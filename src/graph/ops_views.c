/* Shape rules of the views (unsqueeze, squeeze, view, flatten), of dropout
 * (the identity, a view too) and of clone, with PyTorch's dim rules: a dim
 * may be negative, counting from the end; a 0-dim tensor takes dim 0 or -1
 * where PyTorch allows it. The backends set a view's strides
 * (exec/view.h); nothing is copied. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

static const char *op_name(const kbv_node_def *n) { return kbv_op_table[n->op].name; }

/* dim against a rank of `rank` dims (PyTorch's maybe_wrap_dim: a 0-dim
 * tensor counts as rank 1). */
static kbv_status wrap_dim(const kbv_node_def *n, const kbv_value *a, int64_t dim, int rank,
                           int *out)
{
    char da[160];
    int r = rank > 0 ? rank : 1;
    if (dim < -r || dim >= r)
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld is out of range for %s", op_name(n),
                        (long long)dim, kbv_value_describe(a, da, sizeof da));
    *out = (int)(dim < 0 ? dim + r : dim);
    return KBV_OK;
}

kbv_status kbv_shape_identity(const kbv_node_def *n, const kbv_value *const *args,
                              kbv_value *out)
{
    const kbv_value *a = args[0];
    if (n->op == KBV_OP_DROPOUT && (!(n->f[0] >= 0.0 && n->f[0] <= 1.0) || n->i[0] < 0 ||
                                    n->i[0] > 1))
        return kbv_fail(KBV_ERR_INVALID, "dropout: p %g must be in [0, 1] and training 0 or 1",
                        n->f[0]);
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, a->shape, sizeof out->shape);
    return KBV_OK;
}

kbv_status kbv_shape_unsqueeze(const kbv_node_def *n, const kbv_value *const *args,
                               kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    if (a->ndim + 1 > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "unsqueeze: %s has %d dims already",
                        kbv_value_describe(a, da, sizeof da), KBV_MAX_DIMS);
    int d = 0;
    KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim + 1, &d));
    out->dtype = a->dtype;
    out->ndim = a->ndim + 1;
    for (int k = 0, j = 0; k < out->ndim; k++)
        out->shape[k] = k == d ? 1 : a->shape[j++];
    return KBV_OK;
}

/* squeeze(dim) drops dim when its size is 1; squeeze() every size-1 dim. */
kbv_status kbv_shape_squeeze(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out)
{
    const kbv_value *a = args[0];
    int drop = -1;
    if (n->op == KBV_OP_SQUEEZE)
        KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim, &drop));
    out->dtype = a->dtype;
    out->ndim = 0;
    for (int k = 0; k < a->ndim; k++) {
        bool gone = a->shape[k] == 1 && (n->op == KBV_OP_SQUEEZE_ALL || k == drop);
        if (!gone)
            out->shape[out->ndim++] = a->shape[k];
    }
    return KBV_OK;
}

/* torch.flatten(a, start_dim, end_dim): a 0-dim tensor becomes [1]. */
kbv_status kbv_shape_flatten(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out)
{
    const kbv_value *a = args[0];
    int start = 0, end = 0;
    KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim, &start));
    KBV_TRY(wrap_dim(n, a, n->i[1], a->ndim, &end));
    out->dtype = a->dtype;
    if (a->ndim == 0) {
        out->ndim = 1;
        out->shape[0] = 1;
        return KBV_OK;
    }
    if (start > end)
        return kbv_fail(KBV_ERR_INVALID, "flatten: start_dim %lld comes after end_dim %lld",
                        (long long)n->i[0], (long long)n->i[1]);
    out->ndim = 0;
    for (int k = 0; k < start; k++)
        out->shape[out->ndim++] = a->shape[k];
    int64_t merged = 1;
    for (int k = start; k <= end; k++)
        merged *= a->shape[k];
    out->shape[out->ndim++] = merged;
    for (int k = end + 1; k < a->ndim; k++)
        out->shape[out->ndim++] = a->shape[k];
    return KBV_OK;
}

/* One entry of a view's target shape: an integer (-1 once, inferred) or a
 * dim name of the problem. */
static kbv_status view_entry(const kbv_graph *g, const char *s, const char **pp, int64_t *out)
{
    const char *p = *pp;
    if (*p == '-' || isdigit((unsigned char)*p)) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || v < -1)
            return kbv_fail(KBV_ERR_INVALID, "view: '%s': sizes are integers >= -1", s);
        *out = v;
        *pp = end;
        return KBV_OK;
    }
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    if (q == p)
        return kbv_fail(KBV_ERR_INVALID, "view: '%s' is not a tuple of sizes and dim names", s);
    size_t len = (size_t)(q - p);
    for (int d = 0; g && d < g->n_dims; d++) {
        const char *name = g->def->dims[d].name;
        if (strlen(name) == len && !strncmp(name, p, len)) {
            *out = g->dims[d];
            *pp = q;
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_INVALID, "view: '%.*s' in '%s' is not a dim of the problem",
                    (int)len, p, s);
}

kbv_status kbv_shape_view_in(const kbv_graph *g, const kbv_node_def *n,
                             const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    const char *s = n->s;
    char da[160];
    if (!s)
        return kbv_fail(KBV_ERR_INVALID, "view: the target shape (attribute s) is missing");
    const char *p = s;
    while (*p == ' ')
        p++;
    bool paren = *p == '(';
    if (paren)
        p++;
    int nd = 0, infer = -1;
    int64_t shape[KBV_MAX_DIMS];
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')' || *p == '\0')
            break;
        if (nd == KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_INVALID, "view: '%s' has more than %d dims", s,
                            KBV_MAX_DIMS);
        KBV_TRY(view_entry(g, s, &p, &shape[nd]));
        if (shape[nd] == -1) {
            if (infer >= 0)
                return kbv_fail(KBV_ERR_INVALID, "view: '%s' infers more than one dim", s);
            infer = nd;
        }
        nd++;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ')' && *p != '\0')
            return kbv_fail(KBV_ERR_INVALID, "view: '%s': expected ',' or ')'", s);
    }
    if (paren != (*p == ')') || (paren && p[1] != '\0'))
        return kbv_fail(KBV_ERR_INVALID, "view: '%s' is not one tuple", s);
    int64_t known = 1, numel = kbv_value_numel(a);
    for (int d = 0; d < nd; d++)
        if (d != infer)
            known *= shape[d];
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return kbv_fail(KBV_ERR_INVALID, "view: %s does not fit the shape '%s'",
                            kbv_value_describe(a, da, sizeof da), s);
        shape[infer] = numel / known;
        known *= shape[infer];
    }
    if (known != numel)
        return kbv_fail(KBV_ERR_INVALID, "view: %s has %lld elements, the shape '%s' %lld",
                        kbv_value_describe(a, da, sizeof da), (long long)numel, s,
                        (long long)known);
    out->dtype = a->dtype;
    out->ndim = nd;
    memcpy(out->shape, shape, sizeof(int64_t) * (size_t)nd);
    return KBV_OK;
}

kbv_status kbv_shape_view(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    return kbv_shape_view_in(NULL, n, args, out);
}
