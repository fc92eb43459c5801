/* L1/100 HingeLoss on the CPU backend: mean(clamp(1 - predictions * targets,
 * min=0)), targets [C] broadcast along the last dim of predictions [R, C]. One
 * pass, row by row; as in the CUDA candidate, groups of four terms are added in
 * float and those short sums into a double. NaN survives the clamp, as in
 * PyTorch. */
#include <kbv/candidate.h>

static inline float hinge(float p, float t)
{
    float m = 1.f - p * t;
    return m < 0.f ? 0.f : m;
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    const kbv_tensor *pt = &inputs[0], *tt = &inputs[1];
    if (n_inputs != 2 || n_outputs != 1 || pt->ndim < 1 || tt->ndim != 1 ||
        pt->dtype != KBV_F32 || tt->dtype != KBV_F32 || pt->shape[pt->ndim - 1] != tt->shape[0])
        return 1;
    int64_t C = tt->shape[0], R = 1;
    for (int d = 0; d < pt->ndim - 1; d++) R *= pt->shape[d];
    const float *t = tt->data;
    double acc = 0.0;
    for (int64_t r = 0; r < R; r++) {
        const float *p = (const float *)pt->data + r * C;
        int64_t c = 0;
        for (; c + 4 <= C; c += 4)
            acc += (double)((hinge(p[c], t[c]) + hinge(p[c + 1], t[c + 1])) +
                            (hinge(p[c + 2], t[c + 2]) + hinge(p[c + 3], t[c + 3])));
        for (; c < C; c++) acc += (double)hinge(p[c], t[c]);
    }
    *(float *)outputs[0].data = (float)(acc / ((double)R * (double)C));
    return 0;
}
