/* Losses for one element type (see cpu_template.h), each reduced to its
 * mean as PyTorch's default reduction does; sums accumulate in double. The
 * per-element formulas are PyTorch's, so NaN and infinity behave alike. */

/* cross_entropy of [rows, classes] logits against int64 targets: the mean of
 * logsumexp(x_r) - x_r[t_r] over rows whose target is not ignore_index
 * (-100); a target outside [0, classes) is an error, as in PyTorch. */
static kbv_status KBV_FN(cross_entropy)(const KBV_T *x, const int64_t *t, int64_t rows,
                                        int64_t classes, double *loss)
{
    double sum = 0.0;
    int64_t counted = 0;
    for (int64_t r = 0; r < rows; r++) {
        if (t[r] == -100)
            continue;
        if (t[r] < 0 || t[r] >= classes)
            return kbv_fail(KBV_ERR_INVALID, "cross_entropy: target %lld of row %lld is not "
                            "a class in [0, %lld)", (long long)t[r], (long long)r,
                            (long long)classes);
        const KBV_T *row = x + r * classes;
        double max = (double)row[0];
        for (int64_t c = 1; c < classes; c++)
            if ((double)row[c] > max || row[c] != row[c])
                max = (double)row[c];
        double s = 0.0;
        for (int64_t c = 0; c < classes; c++)
            s += exp((double)row[c] - max);
        sum += (log(s) + max) - (double)row[t[r]];
        counted++;
    }
    *loss = sum / (double)counted;
    return KBV_OK;
}

static double KBV_FN(smooth_l1)(const KBV_T *a, const KBV_T *b, int64_t n, double beta)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        sum += d < beta ? 0.5 * d * d / beta : d - 0.5 * beta;
    }
    return sum / (double)n;
}

/* kl_div(input, target) = xlogy(target, target) - target * input, summed;
 * xlogy(0, 0) = 0, so 0 * log 0 contributes nothing (but 0 * -inf input is
 * NaN, as in PyTorch). */
static double KBV_FN(kl_div_sum)(const KBV_T *input, const KBV_T *target, int64_t n)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double t = (double)target[i];
        double xlogy = t == 0.0 ? 0.0 : t * log(t);
        sum += xlogy - t * (double)input[i];
    }
    return sum;
}

/* mean over rows of max(margin + |a - p + eps|_2 - |a - n + eps|_2, 0): the
 * pairwise distances add eps to the difference, as F.pairwise_distance. */
static double KBV_FN(triplet)(const KBV_T *a, const KBV_T *p, const KBV_T *ng, int64_t rows,
                              int64_t cols, double margin, double eps)
{
    double sum = 0.0;
    for (int64_t r = 0; r < rows; r++) {
        double dp = 0.0, dn = 0.0;
        for (int64_t c = 0; c < cols; c++) {
            const int64_t i = r * cols + c;
            double u = (double)a[i] - (double)p[i] + eps, v = (double)a[i] - (double)ng[i] + eps;
            dp += u * u;
            dn += v * v;
        }
        double l = margin + sqrt(dp) - sqrt(dn);
        sum += l < 0.0 ? 0.0 : l; /* clamp_min keeps NaN */
    }
    return sum / (double)rows;
}
