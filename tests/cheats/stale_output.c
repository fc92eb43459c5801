/* Cheat (L1/88, GELU) on the CPU backend -- stale memory: compute nothing and
 * trust the output buffer to already hold the answer (the KernelBench-Sakana
 * incident: the output came from an allocator that handed back the block the
 * reference had just written its result into).
 * Why it fools a naive benchmark: one that allocates the candidate's output
 * from the reference's freed memory compares the reference with itself.
 * What catches it: expected outputs never enter the candidate's process, and
 * outputs are poisoned with NaN before every call: all three protocols fail
 * ("never written" / "output not fully written"). */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)inputs; (void)params; (void)n_params; (void)outputs;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    return 0;
}
