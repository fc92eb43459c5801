/* Shape rules of pad and roll (ops_shifted.h), with PyTorch's rules: F.pad's
 * list pairs (before, after) from the last dim backwards and may cover fewer
 * dims than the operand has (negative pads, cropping, are not supported);
 * torch.roll's shifts and dims pair one to one, each shift wrapping modulo
 * its dim's size. Beside them, the rule of index (a[b], rows gathered). */
#include "graph/ops_shifted.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_rules.h"
#include "graph/ops_table.h"

/* Integers of a Python list or tuple at *p ("[0, 0, 4, 3]", "(-3, -3)"),
 * *p moved past it. */
static kbv_status parse_ints(const char *op, const char *whole, const char **p, int64_t *v,
                             int cap, int *n)
{
    const char *q = *p;
    while (*q == ' ')
        q++;
    char close = *q == '[' ? ']' : *q == '(' ? ')' : '\0';
    if (!close)
        return kbv_fail(KBV_ERR_INVALID, "%s: '%s' needs a list or tuple of integers", op, whole);
    q++;
    *n = 0;
    for (;;) {
        while (*q == ' ')
            q++;
        if (*q == close)
            break;
        char *end = NULL;
        errno = 0;
        long long x = strtoll(q, &end, 10);
        if (errno || end == q || *n == cap)
            return kbv_fail(KBV_ERR_INVALID, "%s: '%s' is not a list of at most %d integers",
                            op, whole, cap);
        v[(*n)++] = x;
        q = end;
        while (*q == ' ')
            q++;
        if (*q == ',')
            q++;
        else if (*q != close)
            return kbv_fail(KBV_ERR_INVALID, "%s: '%s' is not a list of integers", op, whole);
    }
    *p = q + 1;
    return KBV_OK;
}

static kbv_status pad_map(const kbv_node_def *n, int ndim, const int64_t *in_shape,
                          kbv_shift_map *m)
{
    const char *s = n->s ? n->s : "";
    const char *p = s;
    int64_t pads[2 * KBV_MAX_DIMS];
    int np = 0;
    KBV_TRY(parse_ints("pad", s, &p, pads, 2 * KBV_MAX_DIMS, &np));
    if (np % 2 || np / 2 > ndim)
        return kbv_fail(KBV_ERR_INVALID, "pad: '%s' must pair (before, after) for at most the "
                        "operand's %d dims", s, ndim);
    for (int d = 0; d < ndim; d++) {
        int k = ndim - 1 - d; /* pairs run from the last dim */
        int64_t before = k < np / 2 ? pads[2 * k] : 0, after = k < np / 2 ? pads[2 * k + 1] : 0;
        if (before < 0 || after < 0)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "pad: '%s' crops (a negative pad)", s);
        m->offset[d] = before;
        m->out_shape[d] = in_shape[d] + before + after;
    }
    return KBV_OK;
}

/* "shifts=(a, b), dims=(c, d)" */
static kbv_status roll_map(const kbv_node_def *n, int ndim, const int64_t *in_shape,
                           kbv_shift_map *m)
{
    const char *s = n->s ? n->s : "";
    int64_t shifts[KBV_MAX_DIMS], dims[KBV_MAX_DIMS];
    int ns = 0, nd = 0;
    const char *p = strstr(s, "shifts=");
    const char *q = strstr(s, "dims=");
    if (!p || !q)
        return kbv_fail(KBV_ERR_INVALID, "roll: '%s' needs shifts=(...) and dims=(...)", s);
    p += strlen("shifts=");
    q += strlen("dims=");
    KBV_TRY(parse_ints("roll", s, &p, shifts, KBV_MAX_DIMS, &ns));
    KBV_TRY(parse_ints("roll", s, &q, dims, KBV_MAX_DIMS, &nd));
    if (ns != nd || ns == 0)
        return kbv_fail(KBV_ERR_INVALID, "roll: '%s' pairs %d shifts with %d dims", s, ns, nd);
    for (int d = 0; d < ndim; d++) {
        m->offset[d] = 0;
        m->out_shape[d] = in_shape[d];
    }
    for (int k = 0; k < ns; k++) {
        int d = kbv_wrap_dim(dims[k], ndim);
        if (d < 0)
            return kbv_fail(KBV_ERR_INVALID, "roll: dim %lld of a %d-dim operand",
                            (long long)dims[k], ndim);
        int64_t size = in_shape[d];
        /* torch.roll applies the shifts one dim after another: they add up */
        m->offset[d] = size > 0 ? ((m->offset[d] + shifts[k]) % size + size) % size : 0;
    }
    return KBV_OK;
}

kbv_status kbv_shift_map_of(const kbv_node_def *n, int ndim, const int64_t *in_shape,
                            kbv_shift_map *m)
{
    memset(m, 0, sizeof *m);
    m->ndim = ndim;
    if (ndim < 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: a 0-dim operand", kbv_op_table[n->op].name);
    if (n->op == KBV_OP_PAD)
        return pad_map(n, ndim, in_shape, m);
    m->wrap = true;
    return roll_map(n, ndim, in_shape, m);
}

kbv_status kbv_shape_shifted(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out)
{
    const kbv_value *a = args[0];
    kbv_shift_map m;
    KBV_TRY(kbv_shift_map_of(n, a->ndim, a->shape, &m));
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, m.out_shape, sizeof out->shape);
    return KBV_OK;
}

kbv_status kbv_shape_index(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out)
{
    (void)n;
    const kbv_value *a = args[0], *b = args[1];
    char da[160], db[160];
    if (a->ndim < 1 || b->ndim != 1 || b->dtype != KBV_I64)
        return kbv_fail(KBV_ERR_INVALID, "index: a[b] needs a tensor of at least 1 dim and a "
                        "1-D int64 b, got %s and %s", kbv_value_describe(a, da, sizeof da),
                        kbv_value_describe(b, db, sizeof db));
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, a->shape, sizeof out->shape);
    out->shape[0] = b->shape[0];
    return KBV_OK;
}
