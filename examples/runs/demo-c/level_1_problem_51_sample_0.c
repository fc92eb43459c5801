/* L1/51 torch.argmax(x, dim=1) for x[B, K, N] -> int64 [B, N] on the CPU
 * backend. Same scheme as the CUDA candidate, with the loop over k outside and
 * the N contiguous columns inside: a running (value, index) per column,
 * replaced only by a strictly greater value (ties keep the first index) or by
 * the first NaN, which then stays (PyTorch: a NaN is the maximum). */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    const kbv_tensor *t = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || t->ndim < 2 || t->dtype != KBV_F32 ||
        outputs[0].dtype != KBV_I64 || t->shape[1] == 0)
        return 1;
    int64_t B = t->shape[0], K = t->shape[1], N = 1;
    for (int d = 2; d < t->ndim; d++) N *= t->shape[d];
    if (N == 0) return 0;
    float *bv = env->alloc(env, (size_t)N * sizeof *bv);
    if (!bv) return 3;
    for (int64_t b = 0; b < B; b++) {
        const float *x = (const float *)t->data + b * K * N;
        int64_t *bi = (int64_t *)outputs[0].data + b * N;
        for (int64_t n = 0; n < N; n++) { bv[n] = x[n]; bi[n] = 0; }
        for (int64_t k = 1; k < K; k++)
            for (int64_t n = 0; n < N; n++) {
                float v = x[k * N + n];
                if (bv[n] == bv[n] && (v > bv[n] || v != v)) { bv[n] = v; bi[n] = k; }
            }
    }
    env->release(env, bv);
    return 0;
}
