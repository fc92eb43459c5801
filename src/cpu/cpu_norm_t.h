/* Normalisation for one element type (see cpu_template.h). Statistics are
 * taken in double in two passes (mean, then the mean squared deviation: the
 * biased variance PyTorch normalises with); y = (x - mean) / sqrt(var + eps),
 * then the affine w * y + b where the op has one. */

/* Mean and 1/sqrt(var + eps) over `count` runs of `run` contiguous elements,
 * the runs `gap` elements apart, starting at x. */
static void KBV_FN(norm_stats)(const KBV_T *x, int64_t count, int64_t run, int64_t gap,
                               double eps, double *mean, double *invstd)
{
    double sum = 0.0, sq = 0.0;
    for (int64_t c = 0; c < count; c++)
        for (int64_t k = 0; k < run; k++)
            sum += (double)x[c * gap + k];
    const double n = (double)count * (double)run;
    const double m = sum / n;
    for (int64_t c = 0; c < count; c++)
        for (int64_t k = 0; k < run; k++) {
            double d = (double)x[c * gap + k] - m;
            sq += d * d;
        }
    *mean = m;
    *invstd = 1.0 / sqrt(sq / n + eps);
}

/* y = ((x - mean) * invstd) * w + b over the same runs; w and b may be NULL
 * (no affine) and are read at w[w_of(k)] with one value per `w_run`
 * elements of a run when w_run > 0, elementwise (w[k]) when w_run == 0. */
static void KBV_FN(norm_apply)(const KBV_T *x, KBV_T *y, int64_t count, int64_t run,
                               int64_t gap, double mean, double invstd, const KBV_T *w,
                               const KBV_T *b, int64_t w_run)
{
    for (int64_t c = 0; c < count; c++)
        for (int64_t k = 0; k < run; k++) {
            double v = ((double)x[c * gap + k] - mean) * invstd;
            if (w) {
                int64_t at = w_run > 0 ? k / w_run : k;
                v = v * (double)w[at] + (double)b[at];
            }
            y[c * gap + k] = (KBV_T)v;
        }
}

/* x: [n, channels, spatial] contiguous; see kbv_cpu_norm for each op. */
static void KBV_FN(norm_run)(kbv_op op, const KBV_T *x, KBV_T *y, const KBV_T *w,
                             const KBV_T *b, int64_t n, int64_t channels, int64_t spatial,
                             int64_t groups, double eps)
{
    double mean, invstd;
    switch (op) {
    case KBV_OP_BATCH_NORM: /* per channel over batch and spatial */
        for (int64_t c = 0; c < channels; c++) {
            const int64_t at = c * spatial, gap = channels * spatial;
            KBV_FN(norm_stats)(x + at, n, spatial, gap, eps, &mean, &invstd);
            KBV_FN(norm_apply)(x + at, y + at, n, spatial, gap, mean, invstd, w + c, b + c,
                               spatial);
        }
        break;
    case KBV_OP_INSTANCE_NORM: /* per (n, c) over spatial */
        for (int64_t r = 0; r < n * channels; r++) {
            KBV_FN(norm_stats)(x + r * spatial, 1, spatial, 0, eps, &mean, &invstd);
            KBV_FN(norm_apply)(x + r * spatial, y + r * spatial, 1, spatial, 0, mean, invstd,
                               NULL, NULL, 0);
        }
        break;
    case KBV_OP_GROUP_NORM: { /* per (n, g) over its channels and spatial */
        const int64_t per = channels / groups, run = per * spatial;
        for (int64_t r = 0; r < n * groups; r++) {
            const int64_t g = r % groups;
            KBV_FN(norm_stats)(x + r * run, 1, run, 0, eps, &mean, &invstd);
            KBV_FN(norm_apply)(x + r * run, y + r * run, 1, run, 0, mean, invstd, w + g * per,
                               b + g * per, spatial);
        }
        break;
    }
    default: /* layer norm: per row of `spatial` (the normalised size), elementwise affine */
        for (int64_t r = 0; r < n; r++) {
            KBV_FN(norm_stats)(x + r * spatial, 1, spatial, 0, eps, &mean, &invstd);
            KBV_FN(norm_apply)(x + r * spatial, y + r * spatial, 1, spatial, 0, mean, invstd, w,
                               b, 0);
        }
        break;
    }
}
