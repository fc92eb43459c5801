/* Cheat (L1/19, ReLU) on the CPU backend -- an extra exported symbol: besides
 * the ABI's entry points the object exports kbv_cached_answer. The ReLU itself
 * is honest.
 * Why it fools a naive benchmark: an exported symbol is a channel into a
 * harness that resolves names globally -- a hook the harness may call, or a
 * definition that interposes on one of its own functions (see
 * timer_export.c).
 * What catches it: the binary allowlist only lets the ABI's entry points be
 * exported ("binary allowlist: exports 'kbv_cached_answer'"). */
#include <kbv/candidate.h>

__attribute__((visibility("default"))) int kbv_cached_answer(void) { return 1; }

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
        y[i] = x[i] > 0.f ? x[i] : 0.f;
    return 0;
}
