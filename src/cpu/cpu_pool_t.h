/* Pooling loops for one element type (see cpu_template.h), on the
 * three-spatial-dim geometry of cpu_pool.c, one output element at a time.
 * Semantics are PyTorch's CPU and CUDA kernels': max pooling treats padding
 * as -inf and lets a NaN win (v > best || isnan(v)); average pooling sums
 * in the element type over the window clipped to the input and divides by
 * the window's size clipped to the padded input (count_include_pad=True)
 * or to the input (False). */

static void KBV_FN(max_pool)(const pool_geom *g, const KBV_T *x, KBV_T *y)
{
    for (int64_t n = 0; n < g->batch; n++)
        for (int64_t c = 0; c < g->channels; c++) {
            const KBV_T *xp = x + n * g->xs[0] + c * g->xs[1];
            for (int64_t od = 0; od < g->out[0]; od++)
                for (int64_t oh = 0; oh < g->out[1]; oh++)
                    for (int64_t ow = 0; ow < g->out[2]; ow++) {
                        KBV_T best = -INFINITY;
                        for (int64_t kd = 0; kd < g->k[0]; kd++) {
                            int64_t id = od * g->stride[0] - g->pad[0] + kd * g->dil[0];
                            if (id < 0 || id >= g->in[0])
                                continue;
                            for (int64_t kh = 0; kh < g->k[1]; kh++) {
                                int64_t ih = oh * g->stride[1] - g->pad[1] + kh * g->dil[1];
                                if (ih < 0 || ih >= g->in[1])
                                    continue;
                                const KBV_T *xr = xp + id * g->xs[2] + ih * g->xs[3];
                                for (int64_t kw = 0; kw < g->k[2]; kw++) {
                                    int64_t iw = ow * g->stride[2] - g->pad[2] + kw * g->dil[2];
                                    if (iw < 0 || iw >= g->in[2])
                                        continue;
                                    KBV_T v = xr[iw * g->xs[4]];
                                    if (v > best || v != v)
                                        best = v;
                                }
                            }
                        }
                        *y++ = best;
                    }
        }
}

/* [*start, *end) of one window along one dim, clipped to the input; *size
 * is its extent clipped to the padded input only (PyTorch's pool_size). */
static inline void KBV_FN(avg_window)(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p,
                                      int64_t *start, int64_t *end, int64_t *size)
{
    int64_t a = o * s - p, b = a + k;
    if (b > in + p)
        b = in + p;
    *size = b - a;
    *start = a < 0 ? 0 : a;
    *end = b > in ? in : b;
}

static void KBV_FN(avg_pool)(const pool_geom *g, const KBV_T *x, KBV_T *y)
{
    for (int64_t n = 0; n < g->batch; n++)
        for (int64_t c = 0; c < g->channels; c++) {
            const KBV_T *xp = x + n * g->xs[0] + c * g->xs[1];
            for (int64_t od = 0; od < g->out[0]; od++) {
                int64_t d0, d1, sd;
                KBV_FN(avg_window)(od, g->in[0], g->k[0], g->stride[0], g->pad[0], &d0, &d1, &sd);
                for (int64_t oh = 0; oh < g->out[1]; oh++) {
                    int64_t h0, h1, sh;
                    KBV_FN(avg_window)(oh, g->in[1], g->k[1], g->stride[1], g->pad[1], &h0, &h1,
                                       &sh);
                    for (int64_t ow = 0; ow < g->out[2]; ow++) {
                        int64_t w0, w1, sw;
                        KBV_FN(avg_window)(ow, g->in[2], g->k[2], g->stride[2], g->pad[2], &w0,
                                           &w1, &sw);
                        if (d0 >= d1 || h0 >= h1 || w0 >= w1) {
                            *y++ = 0;
                            continue;
                        }
                        KBV_T sum = 0;
                        for (int64_t id = d0; id < d1; id++)
                            for (int64_t ih = h0; ih < h1; ih++) {
                                const KBV_T *xr = xp + id * g->xs[2] + ih * g->xs[3];
                                for (int64_t iw = w0; iw < w1; iw++)
                                    sum += xr[iw * g->xs[4]];
                            }
                        int64_t divisor = g->count_include_pad
                                              ? sd * sh * sw
                                              : (d1 - d0) * (h1 - h0) * (w1 - w0);
                        *y++ = sum / (KBV_T)divisor;
                    }
                }
            }
        }
}
