/* Test candidate: out = x * 2 through 1 MiB of env->alloc scratch. */
#include <string.h>

#include <kbv/candidate.h>

#define SCRATCH_BYTES (1u << 20)

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)state, (void)params, (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    float *tmp = env->alloc(env, SCRATCH_BYTES);
    if (!tmp || ((uintptr_t)tmp & 255) != 0)
        return 2;
    memset(tmp, 0, SCRATCH_BYTES);
    int64_t n = 1;
    for (int d = 0; d < outputs[0].ndim; d++)
        n *= outputs[0].shape[d];
    const float *x = inputs[0].data;
    float *out = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        tmp[i] = x[i] * 2.0f;
    memcpy(out, tmp, (size_t)n * sizeof *out);
    env->release(env, tmp);
    return 0;
}
