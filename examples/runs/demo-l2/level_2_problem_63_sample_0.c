/* L2/63 Gemm_ReLU_Divide on the CPU backend: y = relu(x @ W^T + b) / 2, one
 * pass, float accumulation. Expected: every protocol passes. */
#include <kbv/candidate.h>
#include <string.h>

#define WEIGHT "linear.weight"
#define BIAS "linear.bias"

static float epilogue(float v, float b)
{
    v += b;
    return (v < 0.f ? 0.f : v) / 2.f;
}

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state;
    const kbv_tensor *w = param(params, n_params, WEIGHT), *b = param(params, n_params, BIAS);
    if (n_inputs != 1 || n_outputs != 1 || !w || !b || inputs[0].dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || inputs[0].ndim != 2 || w->ndim != 2 ||
        w->shape[1] != inputs[0].shape[1] || outputs[0].shape[1] != w->shape[0])
        return 1;
    const int64_t M = inputs[0].shape[0], K = inputs[0].shape[1], N = w->shape[0];
    const float *x = inputs[0].data, *wd = w->data, *bd = b->data;
    float *y = outputs[0].data;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            float acc = 0.f;
            for (int64_t k = 0; k < K; k++)
                acc += x[m * K + k] * wd[n * K + k];
            y[m * N + n] = epilogue(acc, bd[n]);
        }
    return 0;
}
