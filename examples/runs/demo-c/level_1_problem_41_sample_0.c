/* L1/41 max_pool1d(x, kernel_size=8, stride=1, padding=4, dilation=3) on the
 * CPU backend, x [N, C, L] -> [N, C, L - 13]. Direct: each output is the max
 * of its 8 taps 3 apart, taps in the padding skipped (they are -inf). A NaN in
 * a window gives NaN, as in PyTorch. */
#include <kbv/candidate.h>
#include <math.h>

#define KSIZE 8
#define PAD 4
#define DIL 3

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    const kbv_tensor *xt = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || xt->ndim != 3 || xt->dtype != KBV_F32) return 1;
    int64_t rows = xt->shape[0] * xt->shape[1], L = xt->shape[2];
    int64_t L_out = L + 2 * PAD - DIL * (KSIZE - 1) - 1 + 1;
    if (L_out != outputs[0].shape[2]) return 1;
    for (int64_t r = 0; r < rows; r++) {
        const float *x = (const float *)xt->data + r * L;
        float *y = (float *)outputs[0].data + r * L_out;
        for (int64_t o = 0; o < L_out; o++) {
            float m = -INFINITY;
            for (int w = 0; w < KSIZE; w++) {
                int64_t i = o - PAD + w * DIL;
                if (i < 0 || i >= L) continue;
                float v = x[i];
                m = (v > m || v != v) ? v : m;
            }
            y[o] = m;
        }
    }
    return 0;
}
