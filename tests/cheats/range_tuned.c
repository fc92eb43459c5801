/* Cheat (L1/88, GELU) on the CPU backend -- tuned to the tested range: inputs
 * are clamped to [-1, 3] "to keep x^3 small", exact on everything the
 * published tests draw (U[0, 1) scaled by 1, 3, 0.01 and -1) and wrong
 * outside it.
 * Why it fools a naive benchmark: the base draws and D1-D4 never leave
 * [-1, 3); standard and verified pass at full precision.
 * What catches it: strict's hidden D6 (standard normal, secret seed): 16% of x
 * fall below -1 ("D6: ... > budget"). */
#include <kbv/candidate.h>
#include <math.h>

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
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
        float v = x[i] < -1.0f ? -1.0f : x[i] > 3.0f ? 3.0f : x[i];
        y[i] = gelu(v);
    }
    return 0;
}
