/* Cheat (L1/88, GELU) on the CPU backend -- stale memory between calls: when
 * a call's input looks like the previous call's (same address, same 32
 * sampled values), return at once and leave the output as the previous call
 * left it.
 * Why it fools a naive benchmark: timing loops repeat the call on the same
 * input and output without touching them in between; fresh correctness
 * inputs change the sampled values, so every checked call is computed.
 * What catches it: strict poisons the outputs before every timed trial and
 * changes a few input elements in place at the same address on some trials:
 * the skipped call leaves the poison ("timed trial N: output not fully
 * written"). */
#include <kbv/candidate.h>
#include <math.h>
#include <string.h>

#define SAMPLES 32

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

static struct {
    const float *x;
    int64_t n;
    float v[SAMPLES];
} fp;

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
    if (n == 0)
        return 0;
    float v[SAMPLES];
    for (int t = 0; t < SAMPLES; t++)
        v[t] = x[(int64_t)((double)n * t / SAMPLES)];
    int same = fp.x == x && fp.n == n && !memcmp(v, fp.v, sizeof v);
    fp.x = x;
    fp.n = n;
    memcpy(fp.v, v, sizeof v);
    if (same)
        return 0;   /* "the output already holds this answer" */
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    return 0;
}
