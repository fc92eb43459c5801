/* Honest control (L1/48, mean over dim 1) on the CPU backend: the sum in
 * double, divided in double, rounded once. It must pass every protocol with
 * no failing flag. */
#include <kbv/candidate.h>

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
        for (int64_t k = 0; k < m; k++) {
            double s = 0.0;
            for (int64_t j = 0; j < n; j++)
                s += (double)x[(i * n + j) * m + k];
            y[i * m + k] = (float)(s / (double)n);
        }
    return 0;
}
