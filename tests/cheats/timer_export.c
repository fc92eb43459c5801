/* Cheat (L1/88, GELU) on the CPU backend -- patching the harness's timer: the
 * candidate defines and exports clock_gettime, which reports a clock that
 * never moves. The GELU itself is honest.
 * The hack: a harness that resolves clock_gettime after loading the
 * candidate with global symbol scope (RTLD_GLOBAL, LD_PRELOAD-style lookup, a
 * lazily bound PLT) would time every call as zero.
 * Why it fools a naive benchmark: its timer is the candidate's.
 * What catches it: the runner loads candidates RTLD_LOCAL, so the definition
 * is never used, and the binary allowlist refuses exports beyond the ABI's
 * entry points ("binary allowlist: exports 'clock_gettime'"). */
#define _POSIX_C_SOURCE 200809L
#include <kbv/candidate.h>
#include <math.h>
#include <time.h>

__attribute__((visibility("default"))) int clock_gettime(clockid_t clk, struct timespec *ts)
{
    (void)clk;
    ts->tv_sec = 1;
    ts->tv_nsec = 0;
    return 0;
}

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
    return 0;
}
