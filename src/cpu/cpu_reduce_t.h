/* Reductions of one line for one element type (see cpu_template.h). Sums
 * accumulate in double for both types (PyTorch's CPU accumulates float in
 * double too); max/min/argmax/argmin compare in the element type, a NaN
 * wins (its value, or its first index) and ties keep the first index. */

/* sum, mean and the 2-norm of n elements x[k * step]. */
static double KBV_FN(line_sum)(const KBV_T *x, int64_t step, int64_t n, bool squares)
{
    double acc = 0.0;
    for (int64_t k = 0; k < n; k++) {
        double v = (double)x[k * step];
        acc += squares ? v * v : v;
    }
    return acc;
}

/* Index of the maximum (want_max) or minimum; the first NaN wins. */
static int64_t KBV_FN(line_arg)(const KBV_T *x, int64_t step, int64_t n, bool want_max)
{
    int64_t best = 0;
    KBV_T b = x[0];
    for (int64_t k = 1; k < n && b == b; k++) {
        KBV_T v = x[k * step];
        if (v != v || (want_max ? v > b : v < b)) {
            b = v;
            best = k;
        }
    }
    return best;
}

static kbv_status KBV_FN(reduce_lines)(const kbv_node *node, kbv_cpu_lines *l, const void *in,
                                       void *out)
{
    const KBV_T *src = in;
    const int64_t n = l->len;
    for (int64_t r = 0; r < l->it.outer_count; r++, kbv_cpu_iter_advance(&l->it)) {
        for (int64_t j = 0; j < l->it.inner; j++) {
            const int64_t oo = l->it.offset[0] + j * l->it.inner_stride[0];
            const KBV_T *x = src + l->it.offset[1] + j * l->it.inner_stride[1];
            switch (node->op) {
            case KBV_OP_SUM:
                ((KBV_T *)out)[oo] = (KBV_T)KBV_FN(line_sum)(x, l->step[1], n, false);
                break;
            case KBV_OP_MEAN:
                ((KBV_T *)out)[oo] = (KBV_T)(KBV_FN(line_sum)(x, l->step[1], n, false) / (double)n);
                break;
            case KBV_OP_NORM_DIM:
                ((KBV_T *)out)[oo] = (KBV_T)sqrt(KBV_FN(line_sum)(x, l->step[1], n, true));
                break;
            case KBV_OP_MAX:
            case KBV_OP_MIN:
                ((KBV_T *)out)[oo] = x[KBV_FN(line_arg)(x, l->step[1], n, node->op == KBV_OP_MAX) *
                                       l->step[1]];
                break;
            case KBV_OP_ARGMAX:
            case KBV_OP_ARGMIN:
                ((int64_t *)out)[oo] = KBV_FN(line_arg)(x, l->step[1], n, node->op == KBV_OP_ARGMAX);
                break;
            default:
                return kbv_fail(KBV_ERR_INVALID, "%s is not a reduction along a dim",
                                kbv_cpu_op_name(node));
            }
        }
    }
    return KBV_OK;
}

/* F.normalize over each line: the norm is rounded to the element type as
 * PyTorch's norm returns it, clamped to eps and divided by. */
static void KBV_FN(normalize_lines)(kbv_cpu_lines *l, double eps, const void *in, void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    const int64_t n = l->len;
    for (int64_t r = 0; r < l->it.outer_count; r++, kbv_cpu_iter_advance(&l->it)) {
        for (int64_t j = 0; j < l->it.inner; j++) {
            KBV_T *y = dst + l->it.offset[0] + j * l->it.inner_stride[0];
            const KBV_T *x = src + l->it.offset[1] + j * l->it.inner_stride[1];
            KBV_T norm = (KBV_T)sqrt(KBV_FN(line_sum)(x, l->step[1], n, true));
            KBV_T denom = norm != norm || norm > (KBV_T)eps ? norm : (KBV_T)eps; /* NaN passes */
            for (int64_t k = 0; k < n; k++)
                y[k * l->step[0]] = x[k * l->step[1]] / denom;
        }
    }
}

/* mean or Frobenius norm of every element of t (any strides). */
static double KBV_FN(reduce_all)(const kbv_tensor *t, bool squares)
{
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {t};
    double acc = 0.0;
    if (kbv_cpu_iter_init(&it, t, ins, 1) != KBV_OK)
        return NAN;
    const KBV_T *src = t->data;
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it))
        acc += KBV_FN(line_sum)(src + it.offset[1], it.inner_stride[1], it.inner, squares);
    return acc;
}

/* One result of a reduction over several dims: the elements of x at base
 * offsets walked by `red` (the reduced dims' shape and strides). amax and
 * logsumexp's max propagate NaN; logsumexp follows PyTorch's
 * log(sum(exp(x - m))) + m with m = 0 where the max is infinite. */
static KBV_T KBV_FN(reduce_dims_one)(kbv_op op, const KBV_T *x, const kbv_tensor *red,
                                     int64_t count)
{
    kbv_cpu_iter it;
    const kbv_tensor *ins[1] = {red};
    if (kbv_cpu_iter_init(&it, red, ins, 1) != KBV_OK)
        return (KBV_T)NAN;
    if (op == KBV_OP_SUM_DIMS || op == KBV_OP_MEAN_DIMS) {
        double acc = 0.0;
        for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it))
            acc += KBV_FN(line_sum)(x + it.offset[1], it.inner_stride[1], it.inner, false);
        return (KBV_T)(op == KBV_OP_MEAN_DIMS ? acc / (double)count : acc);
    }
    KBV_T m = (KBV_T)-INFINITY;
    for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it)) {
        const KBV_T *line = x + it.offset[1];
        for (int64_t j = 0; j < it.inner && m == m; j++) {
            KBV_T v = line[j * it.inner_stride[1]];
            m = (v != v || v > m) ? v : m;
        }
    }
    if (op == KBV_OP_AMAX_DIMS || m != m)
        return m;
    if (isinf(m))
        m = 0;
    kbv_cpu_iter it2;
    if (kbv_cpu_iter_init(&it2, red, ins, 1) != KBV_OK)
        return (KBV_T)NAN;
    double acc = 0.0;
    for (int64_t r = 0; r < it2.outer_count; r++, kbv_cpu_iter_advance(&it2)) {
        const KBV_T *line = x + it2.offset[1];
        for (int64_t j = 0; j < it2.inner; j++)
            acc += (double)KBV_MATH(exp)(line[j * it2.inner_stride[1]] - m);
    }
    return KBV_MATH(log)((KBV_T)acc) + m;
}

/* out[kept index] = the reduction over `red` at each kept index of x. */
static void KBV_FN(reduce_dims_run)(kbv_op op, kbv_cpu_iter *it, const void *in,
                                    const kbv_tensor *red, int64_t count, void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    for (int64_t r = 0; r < it->outer_count; r++, kbv_cpu_iter_advance(it))
        for (int64_t j = 0; j < it->inner; j++)
            dst[it->offset[0] + j * it->inner_stride[0]] = KBV_FN(reduce_dims_one)(
                op, src + it->offset[1] + j * it->inner_stride[1], red, count);
}
