/* Test candidate: runs a shell through system(), which blocks every signal
 * around its clone. Returns 31 if the shell ran. */
#include <stdlib.h>

#include <kbv/candidate.h>

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)inputs, (void)n_inputs, (void)params, (void)n_params;
    (void)outputs, (void)n_outputs;
    return system("true") == 0 ? 31 : 0;
}
