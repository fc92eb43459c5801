/* Honest control (L1/37, x / ||x||_F) on the CPU backend: the sum of squares
 * in double with Kahan compensation, the norm and the quotient in double,
 * each output rounded once. It must pass every protocol with no failing
 * flag. */
#include <kbv/candidate.h>
#include <math.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    double sum = 0.0, lost = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double v = (double)x[i] * (double)x[i] - lost;
        double t = sum + v;
        lost = (t - sum) - v;
        sum = t;
    }
    double norm = sqrt(sum);
    for (int64_t i = 0; i < n; i++)
        y[i] = (float)((double)x[i] / norm);
    return 0;
}
