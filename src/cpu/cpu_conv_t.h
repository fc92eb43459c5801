/* Direct convolution loops for one element type (see cpu_template.h), on
 * the three-spatial-dim geometry of cpu_conv.c. Sums accumulate in the
 * element type, in the output, one weight tap at a time: the innermost loop
 * runs along an output row, so it streams through memory and vectorises.
 * Taps that would read padding are skipped by clipping each loop to the
 * positions whose input index is in range (tap_range), so no element is
 * tested in the inner loop. */

/* y = conv(x, w): y[n, oc, o] = sum over the group's input channels c and
 * taps k of w[oc, c, k] * x[n, c, o * stride - pad + k * dil]. */
static void KBV_FN(conv_forward)(const conv_geom *g, const KBV_T *x, const KBV_T *w, KBV_T *y)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t plane = g->out[0] * g->out[1] * g->out[2];
    for (int64_t n = 0; n < g->batch; n++) {
        for (int64_t oc = 0; oc < g->cout; oc++) {
            KBV_T *yp = y + (n * g->cout + oc) * plane;
            for (int64_t i = 0; i < plane; i++)
                yp[i] = 0;
            const int64_t ic0 = (oc / cout_g) * cin_g;
            for (int64_t c = 0; c < cin_g; c++) {
                const KBV_T *xc = x + n * g->xs[0] + (ic0 + c) * g->xs[1];
                const KBV_T *wc = w + oc * g->ws[0] + c * g->ws[1];
                for (int64_t kd = 0; kd < g->k[0]; kd++) {
                    int64_t d0, d1;
                    tap_range(g->in[0], g->out[0], g->stride[0], g->pad[0], kd * g->dil[0], &d0,
                              &d1);
                    for (int64_t kh = 0; kh < g->k[1]; kh++) {
                        int64_t h0, h1;
                        tap_range(g->in[1], g->out[1], g->stride[1], g->pad[1], kh * g->dil[1],
                                  &h0, &h1);
                        for (int64_t kw = 0; kw < g->k[2]; kw++) {
                            int64_t w0, w1;
                            tap_range(g->in[2], g->out[2], g->stride[2], g->pad[2],
                                      kw * g->dil[2], &w0, &w1);
                            if (w0 >= w1)
                                continue;
                            const KBV_T wv = wc[kd * g->ws[2] + kh * g->ws[3] + kw * g->ws[4]];
                            const int64_t step = g->stride[2] * g->xs[4];
                            const int64_t iw0 = w0 * g->stride[2] - g->pad[2] + kw * g->dil[2];
                            for (int64_t od = d0; od < d1; od++) {
                                const int64_t id = od * g->stride[0] - g->pad[0] + kd * g->dil[0];
                                for (int64_t oh = h0; oh < h1; oh++) {
                                    const int64_t ih =
                                        oh * g->stride[1] - g->pad[1] + kh * g->dil[1];
                                    const KBV_T *xr =
                                        xc + id * g->xs[2] + ih * g->xs[3] + iw0 * g->xs[4];
                                    KBV_T *yr = yp + (od * g->out[1] + oh) * g->out[2] + w0;
                                    for (int64_t j = 0; j < w1 - w0; j++)
                                        yr[j] += wv * xr[j * step];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/* y = conv_transpose(x, w), the adjoint of conv_forward: every input
 * element x[n, ic, i] adds w[ic, c, k] * x to y[n, oc, i * stride - pad +
 * k * dil] for the group's output channels oc (c = oc's index in the
 * group). The scatter runs along input rows; output positions that fall
 * outside y (padding crops them) are clipped away. */
static void KBV_FN(conv_transpose)(const conv_geom *g, const KBV_T *x, const KBV_T *w, KBV_T *y)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t plane = g->out[0] * g->out[1] * g->out[2];
    for (int64_t i = 0; i < g->batch * g->cout * plane; i++)
        y[i] = 0;
    for (int64_t n = 0; n < g->batch; n++) {
        for (int64_t ic = 0; ic < g->cin; ic++) {
            const KBV_T *xc = x + n * g->xs[0] + ic * g->xs[1];
            const int64_t oc0 = (ic / cin_g) * cout_g;
            for (int64_t c = 0; c < cout_g; c++) {
                KBV_T *yp = y + (n * g->cout + oc0 + c) * plane;
                const KBV_T *wc = w + ic * g->ws[0] + c * g->ws[1];
                for (int64_t kd = 0; kd < g->k[0]; kd++) {
                    int64_t d0, d1;
                    tap_range(g->out[0], g->in[0], g->stride[0], g->pad[0], kd * g->dil[0], &d0,
                              &d1);
                    for (int64_t kh = 0; kh < g->k[1]; kh++) {
                        int64_t h0, h1;
                        tap_range(g->out[1], g->in[1], g->stride[1], g->pad[1], kh * g->dil[1],
                                  &h0, &h1);
                        for (int64_t kw = 0; kw < g->k[2]; kw++) {
                            int64_t w0, w1;
                            tap_range(g->out[2], g->in[2], g->stride[2], g->pad[2],
                                      kw * g->dil[2], &w0, &w1);
                            if (w0 >= w1)
                                continue;
                            const KBV_T wv = wc[kd * g->ws[2] + kh * g->ws[3] + kw * g->ws[4]];
                            const int64_t ow0 = w0 * g->stride[2] - g->pad[2] + kw * g->dil[2];
                            for (int64_t id = d0; id < d1; id++) {
                                const int64_t od = id * g->stride[0] - g->pad[0] + kd * g->dil[0];
                                for (int64_t ih = h0; ih < h1; ih++) {
                                    const int64_t oh =
                                        ih * g->stride[1] - g->pad[1] + kh * g->dil[1];
                                    const KBV_T *xr =
                                        xc + id * g->xs[2] + ih * g->xs[3] + w0 * g->xs[4];
                                    KBV_T *yr = yp + (od * g->out[1] + oh) * g->out[2] + ow0;
                                    for (int64_t j = 0; j < w1 - w0; j++)
                                        yr[j * g->stride[2]] += wv * xr[j * g->xs[4]];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/* y[n, oc, ...] += b[oc]: PyTorch adds the bias after the convolution. */
static void KBV_FN(add_bias)(const conv_geom *g, const KBV_T *b, int64_t bs, KBV_T *y)
{
    const int64_t plane = g->out[0] * g->out[1] * g->out[2];
    for (int64_t n = 0; n < g->batch; n++)
        for (int64_t oc = 0; oc < g->cout; oc++) {
            const KBV_T v = b[oc * bs];
            KBV_T *yp = y + (n * g->cout + oc) * plane;
            for (int64_t i = 0; i < plane; i++)
                yp[i] += v;
        }
}
