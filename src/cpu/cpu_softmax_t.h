/* Softmax and log-softmax of one line for one element type (see
 * cpu_template.h). The maximum is subtracted first, as PyTorch does; the sum
 * of exponentials is accumulated in double for both types (the CPU has no
 * reason to lose accuracy there; only matmul imitates FP32 GEMM arithmetic).
 * A NaN anywhere in the line makes the whole line NaN, as in PyTorch. */

static void KBV_FN(softmax_line)(const KBV_T *x, int64_t sx, KBV_T *y, int64_t sy, int64_t len,
                                 bool is_log)
{
    if (len == 0)
        return;
    KBV_T max = x[0];
    for (int64_t k = 1; k < len; k++) {
        KBV_T v = x[k * sx];
        if (v > max || v != v)
            max = v;
        if (max != max)
            break;
    }
    double sum = 0.0;
    for (int64_t k = 0; k < len; k++)
        sum += (double)KBV_MATH(exp)(x[k * sx] - max);
    if (is_log) {
        const KBV_T log_sum = (KBV_T)log(sum);
        for (int64_t k = 0; k < len; k++)
            y[k * sy] = (x[k * sx] - max) - log_sum;
    } else {
        for (int64_t k = 0; k < len; k++)
            y[k * sy] = (KBV_T)((double)KBV_MATH(exp)(x[k * sx] - max) / sum);
    }
}
