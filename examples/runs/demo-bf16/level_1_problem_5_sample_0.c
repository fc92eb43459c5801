/* C = A * s for a bf16 run on the CPU backend: A is bfloat16, s the Python
 * float 3.14 -- a Python number is not cast to bfloat16, so s is a 0-d
 * float32 tensor -- and each product is rounded to bfloat16 once. */
#include <kbv/candidate.h>
#include <math.h>
#include <string.h>

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (isnan(f)) return 0x7FC0u;
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].dtype != KBV_BF16 ||
        inputs[1].dtype != KBV_F32 || inputs[1].ndim != 0 || outputs[0].dtype != KBV_BF16)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const uint16_t *a = inputs[0].data;
    const float s = *(const float *)inputs[1].data;
    uint16_t *c = outputs[0].data;
    for (int64_t i = 0; i < n; i++) c[i] = float_to_bf16(bf16_to_float(a[i]) * s);
    return 0;
}
