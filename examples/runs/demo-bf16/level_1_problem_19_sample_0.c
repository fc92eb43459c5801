/* ReLU for a bf16 run (kbv eval --precision bf16) on the CPU backend: the
 * tensors are bfloat16 (KBV_BF16); any other dtype is refused. A bfloat16 is
 * the top half of a float32, and ReLU of a bf16 value is exact. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_BF16 ||
        outputs[0].dtype != KBV_BF16)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const uint16_t *x = inputs[0].data;
    uint16_t *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        uint16_t v = x[i];
        int nan = (v & 0x7F80u) == 0x7F80u && (v & 0x7Fu);
        y[i] = (v & 0x8000u) && !nan ? 0 : v;   /* negatives (and -0) to +0; NaN passes */
    }
    return 0;
}
