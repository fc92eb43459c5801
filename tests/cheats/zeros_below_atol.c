/* Cheat (L1/19, ReLU) on the CPU backend -- zeros where the outputs are below
 * atol: outputs smaller than 1e-3 are written as 0 ("flush tiny values").
 * The hack: |0 - y| <= atol for every flushed element, so allclose(atol =
 * 1e-3) cannot tell; on the x0.01 draw a tenth of all outputs are flushed. (On
 * the GPU the same idea goes all the way: zeros_below_atol.cu writes a
 * softmax of 393216 columns as all zeros.)
 * Why it fools a naive benchmark: every draw of every published distribution
 * passes allclose.
 * What catches it: strict's error budget against the float64 oracle, relative
 * L2 and max-abs both floored near FP32 accuracy ("... > budget"). */
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
        y[i] = x[i] >= 1e-3f ? x[i] : 0.f;
    return 0;
}
