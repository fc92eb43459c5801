/* L2/1 Conv2D_ReLU_BiasAdd on the CPU backend: y = relu(conv2d(x, W) +
 * conv.bias) + bias, 3x3, stride 1, no padding; one pass per output element,
 * float accumulation. Expected: every protocol passes. */
#include <kbv/candidate.h>
#include <string.h>

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state;
    const kbv_tensor *w = param(params, n_params, "conv.weight");
    const kbv_tensor *cb = param(params, n_params, "conv.bias");
    const kbv_tensor *b = param(params, n_params, "bias");
    const kbv_tensor *x = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || !w || !cb || !b || x->dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || x->ndim != 4 || w->ndim != 4 || w->shape[1] != x->shape[1] ||
        x->shape[2] < w->shape[2] || x->shape[3] < w->shape[3])
        return 1;
    const int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    const int64_t K = w->shape[0], R = w->shape[2], S = w->shape[3];
    const int64_t OH = H - R + 1, OW = W - S + 1;
    const float *xd = x->data, *wd = w->data, *cbd = cb->data, *bd = b->data;
    float *y = outputs[0].data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    float acc = 0.f;
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t r = 0; r < R; r++)
                            for (int64_t s = 0; s < S; s++)
                                acc += xd[((n * C + c) * H + oh + r) * W + ow + s] *
                                       wd[((k * C + c) * R + r) * S + s];
                    float v = acc + cbd[k];
                    v = v < 0.f ? 0.f : v;
                    y[((n * K + k) * OH + oh) * OW + ow] = v + bd[k];
                }
    return 0;
}
