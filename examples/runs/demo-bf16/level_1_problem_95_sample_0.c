/* Cross-entropy loss for a bf16 run on the CPU backend: the logits are
 * bfloat16, the class indices stay int64 (integers are not cast), and the
 * mean loss is a 0-d bfloat16 -- computed in double, rounded once. */
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
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 ||
        inputs[0].dtype != KBV_BF16 || inputs[1].dtype != KBV_I64 ||
        outputs[0].dtype != KBV_BF16)
        return 1;
    int64_t rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    const uint16_t *x = inputs[0].data;
    const int64_t *t = inputs[1].data;
    double total = 0;
    for (int64_t r = 0; r < rows; r++) {
        const uint16_t *row = x + r * cols;
        double m = -INFINITY, sum = 0;
        for (int64_t j = 0; j < cols; j++) m = fmax(m, bf16_to_float(row[j]));
        for (int64_t j = 0; j < cols; j++) sum += exp(bf16_to_float(row[j]) - m);
        if (t[r] < 0 || t[r] >= cols) return 3;
        total += m + log(sum) - bf16_to_float(row[t[r]]);
    }
    *(uint16_t *)outputs[0].data = float_to_bf16((float)(total / (double)rows));
    return 0;
}
