/* Cheat (L1/88, GELU) on the CPU backend -- replaying outputs cached by input
 * pointer: the last y is kept with a fingerprint of its input (the address,
 * the size and 32 values sampled from x); when a call's input matches, the
 * cached y is copied out instead of computed. (On the GPU, replay_cache.cu
 * does this to a 4096^3 matmul, where the copy is hundreds of times cheaper.)
 * Why it fools a naive benchmark: timing loops call again and again on the
 * same tensor, and fresh correctness inputs change the sampled values, so
 * every checked call is computed.
 * What catches it: strict's timed trials change a few elements in place at the
 * same address on some trials; the fingerprint still matches, the replayed y
 * is stale there, and every timed output is judged ("timed trial N: ... >
 * budget"). */
#include <kbv/candidate.h>
#include <math.h>
#include <stdlib.h>
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
    float *y;
} cache;

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
    size_t bytes = (size_t)n * sizeof *y;
    float v[SAMPLES];
    for (int t = 0; t < SAMPLES; t++)
        v[t] = x[(int64_t)((double)n * t / SAMPLES)];
    if (cache.y && cache.x == x && cache.n == n && !memcmp(v, cache.v, sizeof v)) {
        memcpy(y, cache.y, bytes);   /* "same input, same answer" */
        return 0;
    }
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    float *keep = realloc(cache.y, bytes);
    if (!keep)
        return 0;
    memcpy(keep, y, bytes);
    cache.y = keep;
    cache.x = x;
    cache.n = n;
    memcpy(cache.v, v, sizeof v);
    return 0;
}
