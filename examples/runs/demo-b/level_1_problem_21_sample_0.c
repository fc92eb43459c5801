/* Sigmoid on the CPU backend. */
#include <kbv/candidate.h>
#include <math.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1) return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = 1.f / (1.f + expf(-x[i]));
    return 0;
}
