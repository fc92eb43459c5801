/* Honest control (L1/1, C = A @ B) on the CPU backend: every dot product
 * accumulated in double (float inputs are exact in double), rounded once.
 * It must pass every protocol with no failing flag. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    int64_t M = inputs[0].shape[0], K = inputs[0].shape[1], N = inputs[1].shape[1];
    if (inputs[1].shape[0] != K)
        return 1;
    const float *A = inputs[0].data, *B = inputs[1].data;
    float *C = outputs[0].data;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0.0;
            for (int64_t k = 0; k < K; k++)
                acc += (double)A[i * K + k] * (double)B[k * N + j];
            C[i * N + j] = (float)acc;
        }
    return 0;
}
