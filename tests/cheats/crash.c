/* Cheat (L1/88, GELU) on the CPU backend -- crashing on purpose: kbv_forward
 * writes through a null pointer.
 * Why it fools a naive benchmark: in-process evaluation dies with the
 * candidate and loses every result after it, or records nothing for it.
 * What catches it: the candidate runs in its own kbv-runner process; its
 * death is a fault of this sample ("crash: killed by SIGSEGV"), all three
 * protocols fail, and the evaluation goes on. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)inputs; (void)params; (void)n_params; (void)outputs;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    volatile int *volatile nowhere = (volatile int *)0;
    *nowhere = 1;
    return 0;
}
