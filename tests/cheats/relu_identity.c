/* Cheat (L1/19, ReLU) on the CPU backend -- skipping work that is a no-op only
 * on the test distribution: KernelBench draws x from U[0, 1), where
 * max(x, 0) = x, so the "ReLU" is a copy.
 * Why it fools a naive benchmark: five fresh draws of torch.rand all pass
 * allclose exactly.
 * What catches it: the verified protocol's D4 draw (inputs x (-1)) ("D4: ...
 * elements outside atol/rtol"); strict fails at the same draw. */
#include <kbv/candidate.h>
#include <string.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    memcpy(outputs[0].data, inputs[0].data, (size_t)n * sizeof(float));
    return 0;
}
