/* Test candidate: out = x * scale, where kbv_prepare computes the scale
 * from the first parameter and kbv_finish releases it. */
#include <stdlib.h>

#include <kbv/candidate.h>

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                           void **state)
{
    (void)env;
    if (n_params != 1 || params[0].dtype != KBV_F32)
        return 5;
    float *scale = malloc(sizeof *scale);
    if (!scale)
        return 6;
    *scale = *(const float *)params[0].data;
    *state = scale;
    return 0;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)params, (void)n_params;
    if (!state || n_inputs != 1 || n_outputs != 1)
        return 1;
    float scale = *(const float *)state;
    int64_t n = 1;
    for (int d = 0; d < outputs[0].ndim; d++)
        n *= outputs[0].shape[d];
    const float *x = inputs[0].data;
    float *out = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * scale;
    return 0;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    (void)env;
    free(state);
}
