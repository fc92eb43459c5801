/* Basic slicing a[s] (ops.h, slice): s is the index as Python writes it
 * between the brackets, one start:stop:step entry per leading dim
 * (":, 0::2, 1::2, :", ":, 4:-3, 4:-3, :", ":, :, :seq_len"); each part
 * may be left out, a stop may name a dim of the problem, dims after the last
 * entry are taken whole. Python's rules: negative
 * start and stop count from the end, both are clamped to the dim, the
 * step is positive (PyTorch refuses others). Integer indices, None and
 * Ellipsis are not supported (select and unsqueeze are their ops). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

/* One part of an entry: an integer, a dim name (*named; resolved against
 * g's dims, with g NULL *v left alone), or nothing (*given false). */
static kbv_status parse_part(const kbv_graph *g, const char *s, const char **p, int64_t *v,
                             bool *given, bool *named)
{
    while (**p == ' ')
        (*p)++;
    *given = *named = false;
    if (**p == ':' || **p == ',' || **p == '\0')
        return KBV_OK;
    if (isalpha((unsigned char)**p) || **p == '_') {
        const char *q = *p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        size_t len = (size_t)(q - *p);
        bool found = g == NULL;
        for (int d = 0; g && d < g->n_dims && !found; d++) {
            const char *name = g->def->dims[d].name;
            if (strlen(name) == len && !strncmp(name, *p, len)) {
                *v = g->dims[d];
                found = true;
            }
        }
        if (!found)
            return kbv_fail(KBV_ERR_INVALID, "slice: '%.*s' in '%s' is not a dim of the problem",
                            (int)len, *p, s);
        *given = true;
        *named = true;
        *p = q;
    } else {
        char *end = NULL;
        errno = 0;
        long long x = strtoll(*p, &end, 10);
        if (errno || end == *p)
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' is not start:stop:step entries", s);
        *v = x;
        *given = true;
        *p = end;
    }
    while (**p == ' ')
        (*p)++;
    return KBV_OK;
}

static int64_t clamp_index(int64_t i, int64_t size)
{
    if (i < 0)
        i += size;
    return i < 0 ? 0 : i > size ? size : i;
}

kbv_status kbv_slice_dims(const kbv_graph *g, const char *s, int ndim, const int64_t *shape,
                          int64_t *start, int64_t *step, int64_t *length)
{
    for (int d = 0; d < ndim; d++) {
        start[d] = 0;
        step[d] = 1;
        length[d] = shape[d];
    }
    const char *p = s ? s : "";
    for (int d = 0;; d++) {
        while (*p == ' ')
            p++;
        if (*p == '\0' && d > 0)
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' ends with a comma", s);
        if (d == ndim)
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' indexes more than %d dims", s, ndim);
        int64_t v[3] = {0, shape[d], 1};
        bool given[3] = {false, false, false}, named[3] = {false, false, false};
        int parts = 0;
        for (; parts < 3; parts++) {
            KBV_TRY(parse_part(g, s, &p, &v[parts], &given[parts], &named[parts]));
            if (*p != ':')
                break;
            p++;
        }
        if (parts == 0)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "slice: '%s' has an integer index or an empty "
                            "entry (entries are start:stop:step)", s);
        if (parts == 3 || (*p != ',' && *p != '\0'))
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' is not start:stop:step entries", s);
        if (named[0] || named[2])
            return kbv_fail(KBV_ERR_UNSUPPORTED, "slice: '%s': only a stop may name a dim", s);
        int64_t size = shape[d];
        int64_t st = given[2] ? v[2] : 1;
        if (st <= 0)
            return kbv_fail(KBV_ERR_INVALID, "slice: step %lld in '%s' must be positive",
                            (long long)st, s);
        int64_t lo = given[0] ? clamp_index(v[0], size) : 0;
        int64_t hi = given[1] ? clamp_index(v[1], size) : size;
        start[d] = lo;
        step[d] = st;
        /* a named stop unresolved (g NULL): start and step only, the length
         * is the graph's */
        length[d] = named[1] && !g ? -1 : hi > lo ? (hi - lo + st - 1) / st : 0;
        if (*p == '\0')
            return KBV_OK;
        p++; /* the comma */
    }
}

kbv_status kbv_shape_slice_in(const kbv_graph *g, const kbv_node_def *n,
                              const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    int64_t start[KBV_MAX_DIMS], step[KBV_MAX_DIMS];
    if (a->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "slice: a 0-dim tensor has no dim to slice");
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    KBV_TRY(kbv_slice_dims(g, n->s, a->ndim, a->shape, start, step, out->shape));
    for (int d = 0; d < a->ndim; d++)
        if (out->shape[d] < 0)
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' names a dim; its sizes need the "
                            "problem's dims", n->s);
    return KBV_OK;
}

kbv_status kbv_shape_slice(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    return kbv_shape_slice_in(NULL, n, args, out);
}
