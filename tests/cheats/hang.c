/* Cheat (L1/88, GELU) on the CPU backend -- hanging on purpose: kbv_forward
 * spins forever.
 * Why it fools a naive benchmark: one without deadlines waits forever; one
 * that runs candidates in its own process cannot stop this one.
 * What catches it: every request to kbv-runner has a deadline (--timeout); on
 * expiry its process group is killed, the sample fails with "timeout: no
 * answer in S s", and the evaluation goes on. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)inputs; (void)params; (void)n_params; (void)outputs;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    volatile int never = 0;
    while (!never)
        ;
    return 0;
}
