/* L1/89 cumsum along dim 1 on the CPU backend: the CUDA candidate's scheme
 * in plain C. Each row is walked in tiles; inside a tile the running sum is a
 * float (it only ever holds one tile's worth), and a double carry joins the
 * tiles, so rounding does not build up along the row; the carry is added to
 * each output as a float pair hi + lo, split once per tile. */
#include <kbv/candidate.h>

#define TILE 64

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    for (int64_t r = 0; r < rows; r++) {
        const float *x = (const float *)inputs[0].data + r * cols;
        float *y = (float *)outputs[0].data + r * cols;
        double carry = 0.0;
        for (int64_t base = 0; base < cols; base += TILE) {
            int64_t end = base + TILE < cols ? base + TILE : cols;
            const float hi = (float)carry, lo = (float)(carry - (double)hi);
            float run = 0.f;
            for (int64_t j = base; j < end; j++) {
                run += x[j];
                y[j] = hi + (lo + run);
            }
            carry += (double)run;
        }
    }
    return 0;
}
