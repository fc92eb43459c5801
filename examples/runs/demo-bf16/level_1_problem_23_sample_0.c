/* Softmax over dim 1 for a bf16 run on the CPU backend: each row read as
 * float, max-subtracted and summed in double, each result rounded to
 * bfloat16 once. */
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
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 ||
        inputs[0].dtype != KBV_BF16 || outputs[0].dtype != KBV_BF16)
        return 1;
    int64_t rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    for (int64_t r = 0; r < rows; r++) {
        const uint16_t *x = (const uint16_t *)inputs[0].data + r * cols;
        uint16_t *y = (uint16_t *)outputs[0].data + r * cols;
        float m = -INFINITY;
        for (int64_t j = 0; j < cols; j++) m = fmaxf(m, bf16_to_float(x[j]));
        double sum = 0;
        for (int64_t j = 0; j < cols; j++) sum += exp((double)bf16_to_float(x[j]) - m);
        for (int64_t j = 0; j < cols; j++)
            y[j] = float_to_bf16((float)(exp((double)bf16_to_float(x[j]) - m) / sum));
    }
    return 0;
}
