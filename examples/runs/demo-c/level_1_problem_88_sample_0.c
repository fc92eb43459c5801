/* L1/88 MinGPT "new GELU" on the CPU backend: the same fused formula as the
 * CUDA candidate, y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), one pass
 * in float. */
#include <kbv/candidate.h>
#include <math.h>

static inline float new_gelu(float x)
{
    float inner = x + 0.044715f * (x * x * x);
    return (0.5f * x) * (1.f + tanhf(0.7978845608028654f * inner));
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_F32) return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = new_gelu(x[i]);
    return 0;
}
