/* Honest control (L1/89, cumsum along dim 1) on the CPU backend: a
 * Kahan-compensated running sum in float (the sum and the rounding error it
 * dropped), so the error stays near one rounding instead of growing with
 * the row. More accurate than the float32 baseline: it must pass every
 * protocol with no failing flag. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    for (int64_t r = 0; r < rows; r++) {
        const float *x = (const float *)inputs[0].data + r * cols;
        float *y = (float *)outputs[0].data + r * cols;
        float sum = 0.f, lost = 0.f;
        for (int64_t j = 0; j < cols; j++) {
            float v = x[j] - lost;
            float t = sum + v;
            lost = (t - sum) - v;
            sum = t;
            y[j] = sum;
        }
    }
    return 0;
}
