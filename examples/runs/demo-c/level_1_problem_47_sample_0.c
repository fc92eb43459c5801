/* L1/47 torch.sum(x, dim=1, keepdim=True) for x[B, K, N] on the CPU backend.
 * Same scheme as the CUDA candidate: the loop runs over k outside and over the
 * N contiguous columns inside (sequential memory access), runs of 8 values are
 * added in float and those short sums into double accumulators, one per
 * column (scratch from env->alloc). */
#include <kbv/candidate.h>

#define UNROLL 8

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    const kbv_tensor *t = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || t->ndim < 2 || t->dtype != KBV_F32) return 1;
    int64_t B = t->shape[0], K = t->shape[1], N = 1;
    for (int d = 2; d < t->ndim; d++) N *= t->shape[d];
    if (N == 0) return 0;
    double *acc = env->alloc(env, (size_t)N * (sizeof(double) + sizeof(float)));
    if (!acc) return 3;
    float *run = (float *)(acc + N);
    for (int64_t b = 0; b < B; b++) {
        const float *x = (const float *)t->data + b * K * N;
        for (int64_t n = 0; n < N; n++) { acc[n] = 0.0; run[n] = 0.f; }
        for (int64_t k = 0; k < K; k++) {
            for (int64_t n = 0; n < N; n++) run[n] += x[k * N + n];
            if (k % UNROLL == UNROLL - 1 || k == K - 1)
                for (int64_t n = 0; n < N; n++) { acc[n] += (double)run[n]; run[n] = 0.f; }
        }
        float *y = (float *)outputs[0].data + b * N;
        for (int64_t n = 0; n < N; n++) y[n] = (float)acc[n];
    }
    env->release(env, acc);
    return 0;
}
