/* Test candidate: out = x * 2, elementwise over a contiguous float tensor. */
#include <kbv/candidate.h>

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)params, (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < outputs[0].ndim; d++)
        n *= outputs[0].shape[d];
    const float *x = inputs[0].data;
    float *out = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * 2.0f;
    return 0;
}
