/* Adaptive average pooling for one element type (see cpu_template.h): each
 * output element is the mean of its window (graph/ops_rules.h), summed in
 * double. x and y are walked through their strides; dims are [planes...,
 * spatial...] with the last `spatial` dims pooled. */
static void KBV_FN(adaptive_avg_pool)(const kbv_tensor *x, kbv_tensor *y, int spatial)
{
    const KBV_T *src = x->data;
    KBV_T *dst = y->data;
    const int nd = x->ndim, first = nd - spatial;
    int64_t idx[KBV_MAX_DIMS] = {0};
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= y->shape[d];
    for (int64_t e = 0; e < total; e++) {
        int64_t base = 0, lo[KBV_ADAPTIVE_MAX_SPATIAL], hi[KBV_ADAPTIVE_MAX_SPATIAL];
        int64_t yo = 0;
        for (int d = 0; d < nd; d++)
            yo += idx[d] * y->stride[d];
        for (int d = 0; d < first; d++)
            base += idx[d] * x->stride[d];
        int64_t count = 1;
        for (int k = 0; k < spatial; k++) {
            int d = first + k;
            lo[k] = kbv_adaptive_start(idx[d], x->shape[d], y->shape[d]);
            hi[k] = kbv_adaptive_end(idx[d], x->shape[d], y->shape[d]);
            count *= hi[k] - lo[k];
        }
        int64_t w[KBV_ADAPTIVE_MAX_SPATIAL];
        for (int k = 0; k < spatial; k++)
            w[k] = lo[k];
        double acc = 0.0;
        for (int64_t c = 0; c < count; c++) {
            int64_t off = base;
            for (int k = 0; k < spatial; k++)
                off += w[k] * x->stride[first + k];
            acc += (double)src[off];
            for (int k = spatial - 1; k >= 0; k--) {
                if (++w[k] < hi[k])
                    break;
                w[k] = lo[k];
            }
        }
        dst[yo] = (KBV_T)(acc / (double)count);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < y->shape[d])
                break;
            idx[d] = 0;
        }
    }
}
