/* Cheat (L1/88, GELU) on the CPU backend -- lower precision under a loose
 * tolerance: the tanh is evaluated on its argument rounded to half precision
 * and its result rounded to half precision (11 significant bits), the rest in
 * float, as a kernel using fp16 tanh would. (On the GPU, low_precision.cu does
 * the same to a sigmoid's exp with real fp16 arithmetic.)
 * The hack: errors of a few 1e-4, which allclose(atol = rtol = 1e-3) admits on
 * every published distribution (on x3, |y| < 3 and the error stays under
 * 4e-4).
 * Why it fools a naive benchmark: the tolerance decides what "correct" means.
 * What catches it: strict's float64 oracle and error budget, 8x the TF32
 * baseline's own error ("rel L2 error ... > budget"). */
#include <kbv/candidate.h>
#include <math.h>

/* v rounded to 11 significant bits (fp16's significand), nearest-even */
static float to_half_precision(float v)
{
    if (v == 0.f || !isfinite(v))
        return v;
    int e;
    float m = frexpf(v, &e);              /* v = m * 2^e, 0.5 <= |m| < 1 */
    return ldexpf(nearbyintf(ldexpf(m, 11)), e - 11);
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        float s = to_half_precision((v + v * v * v * 0.044715f) * 0.7978845608028654f);
        y[i] = (v * 0.5f) * (1.0f + to_half_precision(tanhf(s)));
    }
    return 0;
}
