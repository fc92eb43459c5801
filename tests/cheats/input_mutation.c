/* Cheat (L1/88, GELU) on the CPU backend -- mutating the input: the result is
 * also written back over x ("in place, to save a buffer").
 * Why it fools a naive benchmark: one that computes the reference before the
 * candidate, or never looks at the input again, sees a correct output.
 * What catches it: strict hashes every input and parameter before and after
 * each call ("input 'x' modified"). */
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
    float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        x[i] = gelu(x[i]);
        y[i] = x[i];
    }
    return 0;
}
