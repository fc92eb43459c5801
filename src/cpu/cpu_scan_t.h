/* Inclusive scans of one line for one element type (see cpu_template.h).
 * The running value is a double for both types, as PyTorch's CPU kernels
 * accumulate float in double; each output is the running value rounded. */

static void KBV_FN(scan_lines)(kbv_cpu_lines *l, bool is_prod, const void *in, void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    for (int64_t r = 0; r < l->it.outer_count; r++, kbv_cpu_iter_advance(&l->it)) {
        for (int64_t j = 0; j < l->it.inner; j++) {
            KBV_T *y = dst + l->it.offset[0] + j * l->it.inner_stride[0];
            const KBV_T *x = src + l->it.offset[1] + j * l->it.inner_stride[1];
            double acc = is_prod ? 1.0 : 0.0;
            for (int64_t k = 0; k < l->len; k++) {
                if (is_prod)
                    acc *= (double)x[k * l->step[1]];
                else
                    acc += (double)x[k * l->step[1]];
                y[k * l->step[0]] = (KBV_T)acc;
            }
        }
    }
}
