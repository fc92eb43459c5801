/* Honest control (L1/19, ReLU) on the CPU backend: y = max(x, 0), every
 * output written once, nothing else touched. It must pass every protocol with
 * no failing flag. */
#include <kbv/candidate.h>

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
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > 0.f ? x[i] : 0.f;
    return 0;
}
