/* torch.einsum of any number of operands: the equation, the pairwise
 * steps' dims (see ops_einsum.h), the shape rule and FLOP count. */
#include "graph/ops_einsum.h"

#include <stdbool.h>
#include <string.h>

#include "graph/ops_rules.h"

static bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* aten's subscript order: A-Z, then a-z */
static int subscript(char c) { return c >= 'a' ? c - 'a' + 26 : c - 'A'; }

kbv_status kbv_einsum_parse(const char *eq, int n_ops, const int *ndim, kbv_einsum_eq *out)
{
    memset(out, 0, sizeof *out);
    if (!eq)
        return kbv_fail(KBV_ERR_INVALID, "einsum: the equation (attribute s) is missing");
    if (n_ops < 1 || n_ops > KBV_EINSUM_MAX_OPS)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': %d operands (1 to %d supported)", eq,
                        n_ops, KBV_EINSUM_MAX_OPS);
    out->n_ops = n_ops;
    char labels[KBV_EINSUM_MAX_OPS][KBV_MAX_DIMS];
    int count[52] = {0}, n_labels[KBV_EINSUM_MAX_OPS] = {0}, op = 0;
    const char *p = eq;
    for (; *p && !(p[0] == '-' && p[1] == '>'); p++) {
        if (*p == ' ')
            continue;
        if (*p == ',') {
            if (++op >= n_ops)
                return kbv_fail(KBV_ERR_INVALID, "einsum '%s': more operands in the equation "
                                "than the %d given", eq, n_ops);
            continue;
        }
        if (*p == '.')
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': ellipses are not supported", eq);
        if (!is_label(*p))
            return kbv_fail(KBV_ERR_INVALID, "einsum '%s': '%c' is not a label [a-zA-Z]", eq, *p);
        if (n_labels[op] >= KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': operand %d has more than %d "
                            "labels", eq, op, KBV_MAX_DIMS);
        for (int j = 0; j < n_labels[op]; j++)
            if (labels[op][j] == *p)
                return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': label '%c' repeats in "
                                "operand %d (a diagonal), not supported", eq, *p, op);
        labels[op][n_labels[op]++] = *p;
        count[subscript(*p)]++;
    }
    if (op != n_ops - 1)
        return kbv_fail(KBV_ERR_INVALID, "einsum '%s': %d operands in the equation, %d given", eq,
                        op + 1, n_ops);
    for (int k = 0; k < n_ops; k++)
        if (n_labels[k] != ndim[k])
            return kbv_fail(KBV_ERR_INVALID, "einsum '%s': operand %d has %d labels and %d dims",
                            eq, k, n_labels[k], ndim[k]);
    int perm[52];
    for (int s = 0; s < 52; s++)
        perm[s] = -1;
    int n = 0;
    if (*p) { /* explicit output */
        for (p += 2; *p; p++) {
            if (*p == ' ')
                continue;
            if (*p == '.')
                return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': ellipses are not supported",
                                eq);
            if (!is_label(*p) || !count[subscript(*p)] || perm[subscript(*p)] >= 0)
                return kbv_fail(KBV_ERR_INVALID, "einsum '%s': output label '%c' is not an "
                                "operand's, or repeats", eq, *p);
            if (n >= KBV_MAX_DIMS)
                return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': more than %d labels", eq,
                                KBV_MAX_DIMS);
            perm[subscript(*p)] = n;
            out->label[n++] = *p;
        }
    } else { /* implicit: the labels seen once, in label order */
        for (int s = 0; s < 52; s++)
            if (count[s] == 1) {
                if (n >= KBV_MAX_DIMS)
                    return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': more than %d labels", eq,
                                    KBV_MAX_DIMS);
                perm[s] = n;
                out->label[n++] = (char)(s < 26 ? 'A' + s : 'a' + s - 26);
            }
    }
    out->n_out = n;
    for (int s = 0; s < 52; s++)
        if (count[s] && perm[s] < 0) {
            if (n >= KBV_MAX_DIMS)
                return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum '%s': more than %d labels", eq,
                                KBV_MAX_DIMS);
            perm[s] = n;
            out->label[n++] = (char)(s < 26 ? 'A' + s : 'a' + s - 26);
        }
    out->n_dims = n;
    for (int k = 0; k < n_ops; k++) {
        for (int d = 0; d < KBV_MAX_DIMS; d++)
            out->op_dim[k][d] = -1;
        for (int j = 0; j < n_labels[k]; j++)
            out->op_dim[k][perm[subscript(labels[k][j])]] = j;
    }
    return KBV_OK;
}

void kbv_einsum_aligned_shape(const kbv_einsum_eq *eq, int k, int ndim, const int64_t *shape,
                              int64_t *aligned)
{
    for (int d = 0; d < eq->n_dims; d++) {
        int j = eq->op_dim[k][d];
        aligned[d] = j >= 0 && j < ndim ? shape[j] : 1;
    }
}

void kbv_einsum_pair_dims(const kbv_einsum_eq *eq, int *counts, const int64_t *a,
                          const int64_t *b, kbv_einsum_pair *p)
{
    memset(p, 0, sizeof *p);
    for (int d = eq->n_out; d < eq->n_dims; d++) {
        if (a[d] != 1 && b[d] != 1) {
            if (--counts[d] == 1) {
                p->sum |= 1u << d;
                counts[d] = 0;
            }
        } else if (counts[d] == 1) {
            if (a[d] != 1) {
                p->a_sum |= 1u << d;
                counts[d] = 0;
            } else if (b[d] != 1) {
                p->b_sum |= 1u << d;
                counts[d] = 0;
            }
        }
    }
}

/* The operands' aligned shapes and each label's size (a size-1 dim
 * broadcasts, as aten's einsum allows). */
static kbv_status aligned_all(const char *eq_s, const kbv_einsum_eq *eq, int n_ops,
                              const kbv_value *const *args, int64_t al[][KBV_MAX_DIMS],
                              int64_t *size)
{
    char da[160];
    for (int d = 0; d < eq->n_dims; d++)
        size[d] = 1;
    for (int k = 0; k < n_ops; k++) {
        kbv_einsum_aligned_shape(eq, k, args[k]->ndim, args[k]->shape, al[k]);
        for (int d = 0; d < eq->n_dims; d++) {
            if (al[k][d] == 1)
                continue;
            if (size[d] != 1 && size[d] != al[k][d])
                return kbv_fail(KBV_ERR_INVALID, "einsum '%s': label '%c' has size %lld in "
                                "operand %d %s and %lld before", eq_s, eq->label[d],
                                (long long)al[k][d], k,
                                kbv_value_describe(args[k], da, sizeof da), (long long)size[d]);
            size[d] = al[k][d];
        }
    }
    return KBV_OK;
}

kbv_status kbv_shape_einsum_n(const kbv_node_def *n, const kbv_value *const *args,
                              kbv_value *out)
{
    int ndim[KBV_EINSUM_MAX_OPS];
    char da[160];
    for (int k = 0; k < n->n_args && k < KBV_EINSUM_MAX_OPS; k++) {
        ndim[k] = args[k]->ndim;
        if (!kbv_dtype_is_float(args[k]->dtype) || args[k]->dtype != args[0]->dtype)
            return kbv_fail(KBV_ERR_INVALID, "einsum: operand %d %s is not a float tensor of "
                            "operand 0's dtype", k, kbv_value_describe(args[k], da, sizeof da));
    }
    kbv_einsum_eq eq;
    KBV_TRY(kbv_einsum_parse(n->s, n->n_args, ndim, &eq));
    int64_t al[KBV_EINSUM_MAX_OPS][KBV_MAX_DIMS], size[KBV_MAX_DIMS];
    KBV_TRY(aligned_all(n->s, &eq, n->n_args, args, al, size));
    out->dtype = args[0]->dtype;
    out->ndim = eq.n_out;
    for (int d = 0; d < eq.n_out; d++)
        out->shape[d] = size[d];
    return KBV_OK;
}

/* The pairwise steps' work: 2 FLOPs per multiply-add of each bmm, one per
 * element of an elementwise product or a pre-sum. */
double kbv_flops_einsum_n(const kbv_graph *g, const kbv_node *n)
{
    const kbv_value *args[KBV_EINSUM_MAX_OPS];
    int ndim[KBV_EINSUM_MAX_OPS];
    if (n->n_args > KBV_EINSUM_MAX_OPS)
        return 0.0;
    for (int k = 0; k < n->n_args; k++) {
        args[k] = &g->values[n->args[k]];
        ndim[k] = args[k]->ndim;
    }
    kbv_einsum_eq eq;
    int64_t al[KBV_EINSUM_MAX_OPS][KBV_MAX_DIMS], size[KBV_MAX_DIMS];
    if (kbv_einsum_parse(n->def->s, n->n_args, ndim, &eq) != KBV_OK ||
        aligned_all(n->def->s, &eq, n->n_args, args, al, size) != KBV_OK)
        return 0.0;
    int counts[KBV_MAX_DIMS] = {0};
    for (int k = 0; k < n->n_args; k++)
        for (int d = 0; d < eq.n_dims; d++)
            counts[d] += al[k][d] != 1;
    double flops = 0.0;
    int64_t acc[KBV_MAX_DIMS];
    memcpy(acc, al[0], sizeof acc);
    for (int k = 1; k < n->n_args; k++) {
        kbv_einsum_pair p;
        kbv_einsum_pair_dims(&eq, counts, acc, al[k], &p);
        double work = 1.0, a_n = 1.0, b_n = 1.0;
        for (int d = 0; d < eq.n_dims; d++) {
            a_n *= (double)acc[d];
            b_n *= (double)al[k][d];
            if (p.a_sum >> d & 1)
                acc[d] = 1;
            int64_t bd = p.b_sum >> d & 1 ? 1 : al[k][d];
            work *= (double)(acc[d] > bd ? acc[d] : bd);
            acc[d] = p.sum >> d & 1 ? 1 : (acc[d] > bd ? acc[d] : bd);
        }
        flops += (p.a_sum ? a_n : 0.0) + (p.b_sum ? b_n : 0.0) + (p.sum ? 2.0 : 1.0) * work;
    }
    if (n->n_args == 1) { /* a sum over the contracted labels */
        double a_n = 1.0;
        for (int d = 0; d < eq.n_dims; d++)
            a_n *= (double)al[0][d];
        flops = eq.n_dims > eq.n_out ? a_n : 0.0;
    }
    return flops;
}
