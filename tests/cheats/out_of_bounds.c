/* Cheat (L1/88, GELU) on the CPU backend -- writing outside its buffers: the
 * word just past the end of the output is used as scratch (a call counter),
 * on the theory that allocations are padded anyway. The n outputs are right.
 * Why it fools a naive benchmark: the output compares equal; the corrupted
 * word is padding or someone else's data, noticed later if ever.
 * What catches it: strict's 4 KiB guard bands around every arena buffer,
 * checked after every call ("guard band after output 'y' overwritten"). */
#include <kbv/candidate.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    uint32_t calls;
    memcpy(&calls, y + n, sizeof calls);   /* one past the end */
    calls++;
    memcpy(y + n, &calls, sizeof calls);
    return 0;
}
