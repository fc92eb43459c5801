/* C = A @ B for a bf16 run on the CPU backend: bfloat16 operands, float32
 * accumulation, one rounding to bfloat16 per element -- as cuBLAS's bf16 GEMM
 * with float32 compute (PyTorch's) does. */
#include <kbv/candidate.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)   /* round to nearest even */
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
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].dtype != KBV_BF16 ||
        inputs[1].dtype != KBV_BF16 || outputs[0].dtype != KBV_BF16)
        return 1;
    int64_t m = inputs[0].shape[0], k = inputs[0].shape[1], n = inputs[1].shape[1];
    const uint16_t *a = inputs[0].data, *b = inputs[1].data;
    uint16_t *c = outputs[0].data;
    float *acc = env->alloc(env, (size_t)n * sizeof *acc);
    if (!acc) return 2;
    for (int64_t i = 0; i < m; i++) {
        memset(acc, 0, (size_t)n * sizeof *acc);
        for (int64_t p = 0; p < k; p++) {
            float av = bf16_to_float(a[i * k + p]);
            for (int64_t j = 0; j < n; j++) acc[j] += av * bf16_to_float(b[p * n + j]);
        }
        for (int64_t j = 0; j < n; j++) c[i * n + j] = float_to_bf16(acc[j]);
    }
    env->release(env, acc);
    return 0;
}
