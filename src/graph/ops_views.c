/* Shape rules of the views (unsqueeze, squeeze, view, flatten, and the
 * general views: transpose_dims, permute, narrow, expand, reshape,
 * contiguous, split and chunk), of dropout (the identity, a view too) and
 * of clone, with PyTorch's dim rules: a dim
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
static kbv_status view_entry(const kbv_graph *g, const kbv_value *a, const char *s,
                             const char **pp, int64_t *out)
{
    const char *p = *pp;
    /* size(k): the operand's own size k, as x.view(x.size(0), 3, -1) */
    if (!strncmp(p, "size(", 5)) {
        char *end = NULL;
        errno = 0;
        long long k = strtoll(p + 5, &end, 10);
        int d = errno || end == p + 5 || *end != ')' ? -1 : kbv_wrap_dim(k, a->ndim);
        if (d < 0 || a->ndim == 0)
            return kbv_fail(KBV_ERR_INVALID, "'%s': size(k) names a dim of the operand", s);
        *out = a->shape[d];
        *pp = end + 1;
        return KBV_OK;
    }
    if (*p == '-' || isdigit((unsigned char)*p)) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || v < -1)
            return kbv_fail(KBV_ERR_INVALID, "'%s': sizes are integers >= -1", s);
        *out = v;
        *pp = end;
        return KBV_OK;
    }
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    if (q == p)
        return kbv_fail(KBV_ERR_INVALID, "'%s' is not a tuple of sizes and dim names", s);
    size_t len = (size_t)(q - p);
    /* NAME.size(k): an input's size k, as NetVLAD's max_sample = x.size()[1]
     * (rendered verbatim, so the module reads it from the tensor) */
    if (!strncmp(q, ".size(", 6)) {
        for (int v = 0; g && v < g->n_inputs; v++) {
            const kbv_value *in = &g->values[v];
            if (!in->name || strlen(in->name) != len || strncmp(in->name, p, len))
                continue;
            const char *at = q + 1;
            KBV_TRY(view_entry(NULL, in, s, &at, out));
            *pp = at;
            return KBV_OK;
        }
        return kbv_fail(KBV_ERR_INVALID, "'%.*s' in '%s' is not an input of the problem",
                        (int)len, p, s);
    }
    for (int d = 0; g && d < g->n_dims; d++) {
        const char *name = g->def->dims[d].name;
        if (strlen(name) == len && !strncmp(name, p, len)) {
            *out = g->dims[d];
            *pp = q;
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_INVALID, "'%.*s' in '%s' is not a dim of the problem",
                    (int)len, p, s);
}

/* A tuple of sizes, "(batch_size, -1, 3, size(2), x.size(1))": integers
 * >= -1, dim names (g NULL: none), size(k), operand a's size k, and
 * NAME.size(k), input NAME's size k (g NULL: none); *infer is the index of
 * the -1, or -1. */
static kbv_status parse_sizes(const kbv_graph *g, const kbv_value *a, const char *op,
                              const char *s,
                              int64_t *shape, int *nd_out, int *infer_out)
{
    if (!s)
        return kbv_fail(KBV_ERR_INVALID, "%s: the sizes (attribute s) are missing", op);
    const char *p = s;
    while (*p == ' ')
        p++;
    bool paren = *p == '(';
    if (paren)
        p++;
    int nd = 0, infer = -1;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')' || *p == '\0')
            break;
        if (nd == KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_INVALID, "%s: '%s' has more than %d dims", op, s,
                            KBV_MAX_DIMS);
        KBV_TRY(view_entry(g, a, s, &p, &shape[nd]));
        if (shape[nd] == -1) {
            if (infer >= 0)
                return kbv_fail(KBV_ERR_INVALID, "%s: '%s' has more than one -1", op, s);
            infer = nd;
        }
        nd++;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ')' && *p != '\0')
            return kbv_fail(KBV_ERR_INVALID, "%s: '%s': expected ',' or ')'", op, s);
    }
    if (paren != (*p == ')') || (paren && p[1] != '\0'))
        return kbv_fail(KBV_ERR_INVALID, "%s: '%s' is not one tuple", op, s);
    *nd_out = nd;
    *infer_out = infer;
    return KBV_OK;
}

kbv_status kbv_shape_view_in(const kbv_graph *g, const kbv_node_def *n,
                             const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    const char *s = n->s;
    char da[160];
    int nd = 0, infer = -1;
    int64_t shape[KBV_MAX_DIMS];
    KBV_TRY(parse_sizes(g, a, op_name(n), s, shape, &nd, &infer));
    int64_t known = 1, numel = kbv_value_numel(a);
    for (int d = 0; d < nd; d++)
        if (d != infer)
            known *= shape[d];
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: %s does not fit the shape '%s'", op_name(n),
                            kbv_value_describe(a, da, sizeof da), s);
        shape[infer] = numel / known;
        known *= shape[infer];
    }
    if (known != numel)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s has %lld elements, the shape '%s' %lld",
                        op_name(n), kbv_value_describe(a, da, sizeof da), (long long)numel, s,
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

int kbv_wrap_dim(int64_t dim, int ndim)
{
    int r = ndim > 0 ? ndim : 1;
    if (dim < -r || dim >= r)
        return -1;
    return (int)(dim < 0 ? dim + r : dim);
}

kbv_status kbv_shape_transpose_dims(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out)
{
    const kbv_value *a = args[0];
    int d0 = 0, d1 = 0;
    KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim, &d0));
    KBV_TRY(wrap_dim(n, a, n->i[1], a->ndim, &d1));
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, a->shape, sizeof out->shape);
    if (a->ndim > 0) {
        out->shape[d0] = a->shape[d1];
        out->shape[d1] = a->shape[d0];
    }
    return KBV_OK;
}

kbv_status kbv_permute_dims(const kbv_node_def *n, int ndim, int *perm)
{
    const char *s = n->s;
    int64_t dims[KBV_MAX_DIMS];
    int nd = 0;
    /* integers only (no dim names): -1 is a dim here, not an inferred size */
    const char *p = s ? s : "";
    while (*p == ' ' || *p == '(')
        p++;
    while (*p && *p != ')') {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || nd == KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_INVALID, "permute: '%s' is not a tuple of dims",
                            s ? s : "(null)");
        dims[nd++] = v;
        p = end;
        while (*p == ' ' || *p == ',')
            p++;
    }
    if (nd != ndim)
        return kbv_fail(KBV_ERR_INVALID, "permute: '%s' names %d dims of a %d-dim tensor",
                        s ? s : "(null)", nd, ndim);
    unsigned seen = 0;
    for (int d = 0; d < nd; d++) {
        int w = kbv_wrap_dim(dims[d], ndim);
        if (w < 0 || (seen & (1u << w)))
            return kbv_fail(KBV_ERR_INVALID, "permute: '%s' is not a permutation of %d dims",
                            s, ndim);
        seen |= 1u << w;
        perm[d] = w;
    }
    return KBV_OK;
}

kbv_status kbv_shape_permute(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out)
{
    const kbv_value *a = args[0];
    int perm[KBV_MAX_DIMS];
    KBV_TRY(kbv_permute_dims(n, a->ndim, perm));
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    for (int d = 0; d < a->ndim; d++)
        out->shape[d] = a->shape[perm[d]];
    return KBV_OK;
}

kbv_status kbv_shape_narrow(const kbv_node_def *n, const kbv_value *const *args,
                            kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    int d = 0;
    if (a->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "narrow: a 0-dim tensor has no dim to narrow");
    KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim, &d));
    int64_t start = n->i[1], length = n->i[2];
    if (start < 0 || length < 0 || start + length > a->shape[d])
        return kbv_fail(KBV_ERR_INVALID, "narrow: start %lld, length %lld do not fit dim %d of %s",
                        (long long)start, (long long)length, d,
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, a->shape, sizeof out->shape);
    out->shape[d] = length;
    return KBV_OK;
}

/* a.expand(sizes): sizes align with a's dims from the right; -1 keeps a's
 * size, a size-1 dim takes any size, new leading dims any size >= 0. */
kbv_status kbv_shape_expand_in(const kbv_graph *g, const kbv_node_def *n,
                               const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    int64_t shape[KBV_MAX_DIMS];
    int nd = 0, infer = -1;
    int64_t sizes[KBV_MAX_DIMS];
    /* several -1 are allowed: parse them one by one */
    const char *s = n->s;
    if (!s)
        return kbv_fail(KBV_ERR_INVALID, "expand: the sizes (attribute s) are missing");
    char part[160];
    const char *p = s;
    while (*p == ' ' || *p == '(')
        p++;
    while (*p && *p != ')') {
        const char *q = p;
        while (*q && *q != ',' && *q != ')')
            q++;
        size_t len = (size_t)(q - p);
        while (len && p[len - 1] == ' ')
            len--;
        if (len == 0 || len >= sizeof part || nd == KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_INVALID, "expand: '%s' is not a tuple of sizes", s);
        memcpy(part, p, len);
        part[len] = '\0';
        int one = 0;
        KBV_TRY(parse_sizes(g, a, "expand", part, &sizes[nd], &one, &infer));
        if (one != 1)
            return kbv_fail(KBV_ERR_INVALID, "expand: '%s' is not a tuple of sizes", s);
        nd++;
        p = q;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (nd < a->ndim)
        return kbv_fail(KBV_ERR_INVALID, "expand: '%s' has fewer dims than %s", s,
                        kbv_value_describe(a, da, sizeof da));
    for (int d = 0; d < nd; d++) {
        int k = d - (nd - a->ndim);      /* a's dim, or < 0 for a new one */
        if (k < 0) {
            if (sizes[d] < 0)
                return kbv_fail(KBV_ERR_INVALID, "expand: '%s': a new dim needs a size", s);
            shape[d] = sizes[d];
        } else if (sizes[d] == -1 || sizes[d] == a->shape[k]) {
            shape[d] = a->shape[k];
        } else if (a->shape[k] == 1) {
            shape[d] = sizes[d];
        } else {
            return kbv_fail(KBV_ERR_INVALID, "expand: %s cannot expand to '%s' (dim %d)",
                            kbv_value_describe(a, da, sizeof da), s, k);
        }
    }
    out->dtype = a->dtype;
    out->ndim = nd;
    memcpy(out->shape, shape, sizeof(int64_t) * (size_t)nd);
    return KBV_OK;
}

kbv_status kbv_shape_expand(const kbv_node_def *n, const kbv_value *const *args,
                            kbv_value *out)
{
    return kbv_shape_expand_in(NULL, n, args, out);
}

void kbv_split_piece(const kbv_node_def *n, int64_t size, int j, int64_t *start,
                     int64_t *length)
{
    int64_t per = n->op == KBV_OP_SPLIT ? n->i[0] : (size + n->i[0] - 1) / n->i[0];
    *start = per * j;
    *length = size - *start < per ? size - *start : per;
}

kbv_status kbv_shape_split(const kbv_node_def *n, const kbv_value *const *args,
                           kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    int d = 0;
    if (a->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: a 0-dim tensor has no dim to split", op_name(n));
    KBV_TRY(wrap_dim(n, a, n->i[1], a->ndim, &d));
    if (n->i[0] <= 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s %lld must be positive", op_name(n),
                        n->op == KBV_OP_SPLIT ? "split_size" : "chunks", (long long)n->i[0]);
    int64_t size = a->shape[d];
    int64_t per = n->op == KBV_OP_SPLIT ? n->i[0] : (size + n->i[0] - 1) / n->i[0];
    int64_t pieces = per > 0 ? (size + per - 1) / per : 1;
    if (pieces < 1)
        pieces = 1;
    if (pieces != n->n_outs)
        return kbv_fail(KBV_ERR_INVALID, "%s: %s gives %lld pieces along dim %d, %d outputs "
                        "are named", op_name(n), kbv_value_describe(a, da, sizeof da),
                        (long long)pieces, d, n->n_outs);
    for (int j = 0; j < n->n_outs; j++) {
        int64_t start = 0, length = 0;
        kbv_split_piece(n, size, j, &start, &length);
        out[j].dtype = a->dtype;
        out[j].ndim = a->ndim;
        memcpy(out[j].shape, a->shape, sizeof out[j].shape);
        out[j].shape[d] = length;
    }
    return KBV_OK;
}

kbv_status kbv_shape_unfold(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    char da[160];
    int d = 0;
    if (a->ndim == 0 || a->ndim == KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "unfold: %s has no dim to unfold or no room for "
                        "the window dim", kbv_value_describe(a, da, sizeof da));
    KBV_TRY(wrap_dim(n, a, n->i[0], a->ndim, &d));
    const int64_t size = n->i[1], step = n->i[2];
    if (size <= 0 || step <= 0 || size > a->shape[d])
        return kbv_fail(KBV_ERR_INVALID, "unfold: size %lld, step %lld do not fit dim %d of %s",
                        (long long)size, (long long)step, d,
                        kbv_value_describe(a, da, sizeof da));
    out->dtype = a->dtype;
    out->ndim = a->ndim + 1;
    memcpy(out->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    out->shape[d] = (a->shape[d] - size) / step + 1;
    out->shape[a->ndim] = size;
    return KBV_OK;
}
