/* The elementwise pieces the normalisation, GELU and loss modules write out,
 * for one element type (see cpu_template.h), with PyTorch's formulas. */

/* torch.pow(x, e) as PyTorch's pow_tensor_scalar kernels evaluate it: the
 * exponents 2, 3, 0.5, -0.5, -1 and -2 by multiplications and roots, any
 * other through pow(). */
static inline KBV_T KBV_FN(pow_scalar)(KBV_T x, double e)
{
    if (e == 2.0)
        return x * x;
    if (e == 3.0)
        return x * x * x;
    if (e == 0.5)
        return KBV_MATH(sqrt)(x);
    if (e == -0.5)
        return (KBV_T)1 / KBV_MATH(sqrt)(x);
    if (e == -1.0)
        return (KBV_T)1 / x;
    if (e == -2.0)
        return (KBV_T)1 / (x * x);
    return KBV_MATH(pow)(x, (KBV_T)e);
}

static kbv_status KBV_FN(pointwise_run)(const kbv_node *node, kbv_cpu_iter *it, const void *in,
                                        void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    const double f0 = node->def ? node->def->f[0] : 0.0;
    const KBV_T c = (KBV_T)f0;
    for (int64_t r = 0; r < it->outer_count; r++, kbv_cpu_iter_advance(it)) {
        KBV_T *o = dst + it->offset[0];
        const KBV_T *a = src + it->offset[1];
        const int64_t so = it->inner_stride[0], sa = it->inner_stride[1];
        for (int64_t j = 0; j < it->inner; j++) {
            const KBV_T x = a[j * sa];
            KBV_T y;
            switch (node->op) {
            case KBV_OP_POW_SCALAR: y = KBV_FN(pow_scalar)(x, f0); break;
            case KBV_OP_SQRT: y = KBV_MATH(sqrt)(x); break;
            case KBV_OP_LOG: y = KBV_MATH(log)(x); break;
            case KBV_OP_RSUB_SCALAR: y = c - x; break;
            /* a NaN stays NaN, as torch.clamp leaves it */
            case KBV_OP_CLAMP_MIN: y = x < c ? c : x; break;
            default:
                return kbv_fail(KBV_ERR_INVALID, "%s is not a pointwise op of this family",
                                kbv_cpu_op_name(node));
            }
            o[j * so] = y;
        }
    }
    return KBV_OK;
}

/* a.masked_fill(mask, value): value where the mask is true, a elsewhere. */
static void KBV_FN(masked_fill_run)(kbv_cpu_iter *it, const void *in, const unsigned char *mask,
                                    double value, void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    const KBV_T fill = (KBV_T)value;
    for (int64_t r = 0; r < it->outer_count; r++, kbv_cpu_iter_advance(it)) {
        KBV_T *o = dst + it->offset[0];
        const KBV_T *a = src + it->offset[1];
        const unsigned char *m = mask + it->offset[2];
        const int64_t so = it->inner_stride[0], sa = it->inner_stride[1],
                      sm = it->inner_stride[2];
        for (int64_t j = 0; j < it->inner; j++)
            o[j * so] = m[j * sm] ? fill : a[j * sa];
    }
}

/* a * mask: the bool promoted to 0 or 1 of the element type, then multiplied
 * (so inf * false is NaN, as in PyTorch). */
static void KBV_FN(mul_mask_run)(kbv_cpu_iter *it, const void *in, const unsigned char *mask,
                                 void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    for (int64_t r = 0; r < it->outer_count; r++, kbv_cpu_iter_advance(it)) {
        KBV_T *o = dst + it->offset[0];
        const KBV_T *a = src + it->offset[1];
        const unsigned char *m = mask + it->offset[2];
        const int64_t so = it->inner_stride[0], sa = it->inner_stride[1],
                      sm = it->inner_stride[2];
        for (int64_t j = 0; j < it->inner; j++)
            o[j * so] = a[j * sa] * (KBV_T)(m[j * sm] != 0);
    }
}
