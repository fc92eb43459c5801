/* L1/94 MSELoss on the CPU backend: mean((predictions - targets)^2) in one
 * pass. As in the CUDA candidate, each group of four squares is added in float
 * and that short sum into a double accumulator; the mean is taken in double. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].dtype != KBV_F32 ||
        inputs[1].dtype != KBV_F32 || inputs[0].ndim != inputs[1].ndim)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) {
        if (inputs[0].shape[d] != inputs[1].shape[d]) return 1;
        n *= inputs[0].shape[d];
    }
    const float *p = inputs[0].data, *t = inputs[1].data;
    double acc = 0.0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float d0 = p[i] - t[i], d1 = p[i + 1] - t[i + 1], d2 = p[i + 2] - t[i + 2],
              d3 = p[i + 3] - t[i + 3];
        acc += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
    }
    for (; i < n; i++) {
        float d = p[i] - t[i];
        acc += (double)(d * d);
    }
    *(float *)outputs[0].data = (float)(acc / (double)n);
    return 0;
}
