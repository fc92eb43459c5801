/* L1/95 cross_entropy(predictions [R, C], targets int64 [R]) on the CPU
 * backend: the mean over rows of logsumexp(row) - row[target]. As in the CUDA
 * candidate, each row is read once with an online (max, sum of exp(x - max))
 * in float, rescaled only when a group of four raises the max; the row losses
 * go into a double. Target -100 (ignore_index) rows are skipped; a target
 * outside [0, C) gives NaN. */
#include <kbv/candidate.h>
#include <math.h>

static void add4(float *m, float *s, float a, float b, float c, float d)
{
    float mx = fmaxf(fmaxf(a, b), fmaxf(c, d));
    if (mx > *m) { *s *= expf(*m - mx); *m = mx; }
    if (*m != -INFINITY || mx != mx)
        *s += (expf(a - *m) + expf(b - *m)) + (expf(c - *m) + expf(d - *m));
}

static void add1(float *m, float *s, float a)
{
    if (a > *m) { *s *= expf(*m - a); *m = a; }
    if (*m != -INFINITY || a != a) *s += expf(a - *m);
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    const kbv_tensor *xt = &inputs[0], *tt = &inputs[1];
    if (n_inputs != 2 || n_outputs != 1 || xt->ndim != 2 || tt->ndim != 1 ||
        xt->dtype != KBV_F32 || tt->dtype != KBV_I64 || tt->shape[0] != xt->shape[0])
        return 1;
    int64_t R = xt->shape[0], C = xt->shape[1];
    const int64_t *target = tt->data;
    double loss = 0.0, count = 0.0;
    for (int64_t r = 0; r < R; r++) {
        int64_t t = target[r];
        if (t == -100) continue;
        const float *row = (const float *)xt->data + r * C;
        float m = -INFINITY, s = 0.f;
        int64_t c = 0;
        for (; c + 4 <= C; c += 4) add4(&m, &s, row[c], row[c + 1], row[c + 2], row[c + 3]);
        for (; c < C; c++) add1(&m, &s, row[c]);
        loss += (t < 0 || t >= C) ? (double)NAN : (log((double)s) + (double)m) - (double)row[t];
        count += 1.0;
    }
    *(float *)outputs[0].data = (float)(loss / count);
    return 0;
}
