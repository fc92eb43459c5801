/* Honest control (L1/47, sum over dim 1 with keepdim) on the CPU backend:
 * float accumulation in another association order than the baseline's --
 * pairwise (a balanced tree over the reduced elements), walked from the
 * last element down. It must pass every protocol with no failing flag. */
#include <kbv/candidate.h>

/* Sum of n floats at x, x - step, x - 2 step, ... as a balanced tree. */
static float tree_sum(const float *x, int64_t n, int64_t step)
{
    if (n == 1)
        return x[0];
    int64_t h = n / 2;
    return tree_sum(x, h, step) + tree_sum(x - h * step, n - h, step);
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 3 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t b = inputs[0].shape[0], n = inputs[0].shape[1], m = inputs[0].shape[2];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < b; i++)
        for (int64_t k = 0; k < m; k++)
            y[i * m + k] = n > 0 ? tree_sum(x + (i * n + n - 1) * m + k, n, m) : 0.f;
    return 0;
}
