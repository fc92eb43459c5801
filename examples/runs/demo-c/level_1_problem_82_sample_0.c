/* L1/82 depthwise conv2d, 3x3, stride 1, no padding, no bias, on the CPU
 * backend: x [N, C, H, W], weight [C, 1, 3, 3] -> y [N, C, H-2, W-2]. Direct,
 * plane by plane; each output is a float multiply-add over its 9 taps in the
 * CUDA candidate's order (kernel rows top to bottom, columns left to right).
 * Plain a * b + c rather than fmaf: without -mfma, fmaf is a slow library
 * call. */
#include <kbv/candidate.h>

#define K 3

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state;
    const kbv_tensor *xt = &inputs[0], *wt = &params[0];
    if (n_inputs != 1 || n_params != 1 || n_outputs != 1 || xt->ndim != 4 || wt->ndim != 4 ||
        xt->dtype != KBV_F32 || wt->dtype != KBV_F32)
        return 1;
    int64_t N = xt->shape[0], C = xt->shape[1], H = xt->shape[2], W = xt->shape[3];
    if (wt->shape[0] != C || wt->shape[1] != 1 || wt->shape[2] != K || wt->shape[3] != K ||
        H < K || W < K)
        return 1;
    int64_t Ho = H - K + 1, Wo = W - K + 1;
    for (int64_t p = 0; p < N * C; p++) {
        const float *x = (const float *)xt->data + p * H * W;
        const float *w = (const float *)wt->data + (p % C) * K * K;
        float *y = (float *)outputs[0].data + p * Ho * Wo;
        for (int64_t oy = 0; oy < Ho; oy++)
            for (int64_t ox = 0; ox < Wo; ox++) {
                float acc = 0.f;
                for (int kr = 0; kr < K; kr++)
                    for (int kc = 0; kc < K; kc++)
                        acc += w[kr * K + kc] * x[(oy + kr) * W + ox + kc];
                y[oy * Wo + ox] = acc;
            }
    }
    return 0;
}
