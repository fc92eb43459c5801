/* Basic slicing a[s] (ops.h, slice): s is the index as Python writes it
 * between the brackets, one start:stop:step entry per leading dim
 * (":, 0::2, 1::2, :", ":, 4:-3, 4:-3, :"); each part may be left out,
 * dims after the last entry are taken whole. Python's rules: negative
 * start and stop count from the end, both are clamped to the dim, the
 * step is positive (PyTorch refuses others). Integer indices, None and
 * Ellipsis are not supported (select and unsqueeze are their ops). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

/* One part of an entry: an integer, or nothing (*given false). */
static bool parse_part(const char **p, int64_t *v, bool *given)
{
    while (**p == ' ')
        (*p)++;
    *given = false;
    if (**p == ':' || **p == ',' || **p == '\0')
        return true;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(*p, &end, 10);
    if (errno || end == *p)
        return false;
    *v = x;
    *given = true;
    *p = end;
    while (**p == ' ')
        (*p)++;
    return true;
}

static int64_t clamp_index(int64_t i, int64_t size)
{
    if (i < 0)
        i += size;
    return i < 0 ? 0 : i > size ? size : i;
}

kbv_status kbv_slice_dims(const char *s, int ndim, const int64_t *shape, int64_t *start,
                          int64_t *step, int64_t *length)
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
        bool given[3] = {false, false, false};
        int parts = 0;
        for (; parts < 3; parts++) {
            if (!parse_part(&p, &v[parts], &given[parts]))
                return kbv_fail(KBV_ERR_INVALID, "slice: '%s' is not start:stop:step entries", s);
            if (*p != ':')
                break;
            p++;
        }
        if (parts == 0)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "slice: '%s' has an integer index or an empty "
                            "entry (entries are start:stop:step)", s);
        if (parts == 3 || (*p != ',' && *p != '\0'))
            return kbv_fail(KBV_ERR_INVALID, "slice: '%s' is not start:stop:step entries", s);
        int64_t size = shape[d];
        int64_t st = given[2] ? v[2] : 1;
        if (st <= 0)
            return kbv_fail(KBV_ERR_INVALID, "slice: step %lld in '%s' must be positive",
                            (long long)st, s);
        int64_t lo = given[0] ? clamp_index(v[0], size) : 0;
        int64_t hi = given[1] ? clamp_index(v[1], size) : size;
        start[d] = lo;
        step[d] = st;
        length[d] = hi > lo ? (hi - lo + st - 1) / st : 0;
        if (*p == '\0')
            return KBV_OK;
        p++; /* the comma */
    }
}

kbv_status kbv_shape_slice(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    const kbv_value *a = args[0];
    int64_t start[KBV_MAX_DIMS], step[KBV_MAX_DIMS];
    if (a->ndim == 0)
        return kbv_fail(KBV_ERR_INVALID, "slice: a 0-dim tensor has no dim to slice");
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    return kbv_slice_dims(n->s, a->ndim, a->shape, start, step, out->shape);
}
