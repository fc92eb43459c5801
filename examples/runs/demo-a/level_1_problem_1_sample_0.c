/* C = A @ B on the CPU backend: i-k-j loop order, float accumulation. */
#include <kbv/candidate.h>
#include <string.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1) return 1;
    int64_t m = inputs[0].shape[0], k = inputs[0].shape[1], n = inputs[1].shape[1];
    const float *a = inputs[0].data, *b = inputs[1].data;
    float *c = outputs[0].data;
    memset(c, 0, (size_t)(m * n) * sizeof *c);
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++) {
            float av = a[i * k + p];
            for (int64_t j = 0; j < n; j++) c[i * n + j] += av * b[p * n + j];
        }
    return 0;
}
