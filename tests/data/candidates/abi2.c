/* Test candidate: claims ABI version 2. It opts out of the header's own
 * version symbol and defines one with another value. */
#undef KBV_CANDIDATE_BUILD
#include <kbv/candidate.h>

KBV_EXPORT const int kbv_candidate_abi_version;
const int kbv_candidate_abi_version = 2;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)inputs, (void)n_inputs, (void)params, (void)n_params;
    (void)outputs, (void)n_outputs;
    return 0;
}
