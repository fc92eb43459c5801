/* Test candidate: out = x * (the sum of every parameter's first element),
 * after checking that parameter i is named "p.<i>": the whole table of a
 * model's parameters reached it, in order. */
#include <stdio.h>
#include <string.h>

#include <kbv/candidate.h>

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    float sum = 0;
    char want[32];
    for (int p = 0; p < n_params; p++) {
        snprintf(want, sizeof want, "p.%d", p);
        if (!params[p].name || strcmp(params[p].name, want) != 0)
            return 2;
        sum += *(const float *)params[p].data;
    }
    int64_t n = 1;
    for (int d = 0; d < outputs[0].ndim; d++)
        n *= outputs[0].shape[d];
    const float *x = inputs[0].data;
    float *out = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * sum;
    return 0;
}
