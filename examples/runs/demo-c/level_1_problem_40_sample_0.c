/* L1/40 layer_norm over the last three dims on the CPU backend, x [B, F, D1, D2],
 * weight and bias [F, D1, D2], eps 1e-5. The CUDA candidate's scheme: per
 * sample, partial (sum, sum of squares) over P chunks of values shifted by the
 * sample's first element (so E[x^2] - E[x]^2 does not cancel), four values
 * added in float and that short sum into a double; the partials combined in
 * order; then y = (x - mean) * rstd * w + b in float. */
#include <kbv/candidate.h>
#include <math.h>

#define EPS 1e-5
#define P 4                                   /* chunks per sample */

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state;
    const kbv_tensor *xt = &inputs[0], *wt = &params[0], *bt = &params[1];
    if (n_inputs != 1 || n_params != 2 || n_outputs != 1 || xt->dtype != KBV_F32 ||
        wt->dtype != KBV_F32 || bt->dtype != KBV_F32 || xt->ndim != wt->ndim + 1)
        return 1;
    int64_t M = 1;
    for (int d = 0; d < wt->ndim; d++) {
        if (wt->shape[d] != xt->shape[d + 1] || bt->shape[d] != wt->shape[d]) return 1;
        M *= wt->shape[d];
    }
    if (M == 0) return 1;
    const float *w = wt->data, *bias = bt->data;
    for (int64_t b = 0; b < xt->shape[0]; b++) {
        const float *x = (const float *)xt->data + b * M;
        float *y = (float *)outputs[0].data + b * M;
        const float k = x[0];
        double s = 0.0, q = 0.0;
        for (int p = 0; p < P; p++) {
            int64_t lo = M * p / P, hi = M * (p + 1) / P, i = lo;
            double ps = 0.0, pq = 0.0;
            for (; i + 4 <= hi; i += 4) {
                float a0 = x[i] - k, a1 = x[i + 1] - k, a2 = x[i + 2] - k, a3 = x[i + 3] - k;
                ps += (double)((a0 + a1) + (a2 + a3));
                pq += (double)((a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3));
            }
            for (; i < hi; i++) {
                float d = x[i] - k;
                ps += (double)d;
                pq += (double)(d * d);
            }
            s += ps;
            q += pq;
        }
        double m_shift = s / (double)M, var = q / (double)M - m_shift * m_shift;
        if (var < 0.0) var = 0.0;
        const float mean = (float)((double)k + m_shift), rstd = (float)(1.0 / sqrt(var + EPS));
        for (int64_t i = 0; i < M; i++) y[i] = (x[i] - mean) * rstd * w[i] + bias[i];
    }
    return 0;
}
