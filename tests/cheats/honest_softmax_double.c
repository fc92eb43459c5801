/* Honest control (L1/23, softmax over dim 1) on the CPU backend: the row
 * maximum, the exponentials and their sum in double, each output rounded
 * once. It must pass every protocol with no failing flag. */
#include <kbv/candidate.h>
#include <math.h>

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
        double mx = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j < cols; j++)
            mx = x[j] > mx ? x[j] : mx;
        for (int64_t j = 0; j < cols; j++)
            sum += exp((double)x[j] - mx);
        for (int64_t j = 0; j < cols; j++)
            y[j] = (float)(exp((double)x[j] - mx) / sum);
    }
    return 0;
}
