// L2/4 Conv2d_Mish_Mish in a run that allows vendor libraries (kbv eval
// --allow-vendor-libs): y = mish(mish(conv2d(x, W) + b)), a 3x3 convolution,
// stride 1, no padding, mish(v) = v tanh(softplus(v)). The convolution is
// cuDNN's (the legacy API, the descriptor's math FMA: plain FP32 kernels
// only, the first algorithm its heuristic offers), the rest one kernel of its
// own: the bias and both Mish in one pass over the convolution's output, in
// place (PyTorch's eager module writes the convolution, then each Mish, to a
// tensor of its own).
// What it follows: the handle and descriptors are made in kbv_prepare and kept
// in the state; the descriptors' shapes, the algorithm and the workspace
// (env->alloc) are made per shape (the hidden shapes change the batch and the
// image); every call of cuDNN and of its own kernel is on env->stream.
// Expected (examples/runs/demo-l2-vendor/EXPECTED.tsv): standard and strict
// pass; verified fails at D2 (x3): the paper's reference is cuDNN with TF32
// (PyTorch's default), and this FMA-math convolution is more than 1e-3 from it
// on a few elements (3 of 528 million on the H200).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>

typedef struct plan {
    int n, c, h, w, k, r, s;                 /* the shape it was made for; n == 0: none */
    cudnnConvolutionFwdAlgo_t algo;
    void *workspace;
    size_t workspace_bytes;
} plan;

typedef struct conv_state {
    cudnnHandle_t dnn;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    plan p;
} conv_state;

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

/* PyTorch's mish in float: v * tanh(log1p(exp(v))). */
__device__ __forceinline__ float mish(float v) { return v * tanhf(log1pf(expf(v))); }

/* y = mish(mish(y + bias[k])) over the n * k planes of hw elements. */
__global__ void bias_mish_mish(float *__restrict__ y, const float *__restrict__ bias, int k,
                               long long hw, long long total)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += step)
        y[i] = mish(mish(y[i] + bias[(i / hw) % k]));
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    conv_state *st = (conv_state *)state;
    if (!st)
        return;
    if (st->p.workspace)
        env->release(env, st->p.workspace);
    if (st->conv)
        cudnnDestroyConvolutionDescriptor(st->conv);
    if (st->w)
        cudnnDestroyFilterDescriptor(st->w);
    if (st->y)
        cudnnDestroyTensorDescriptor(st->y);
    if (st->x)
        cudnnDestroyTensorDescriptor(st->x);
    if (st->dnn)
        cudnnDestroy(st->dnn);
    free(st);
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                           void **state)
{
    (void)params;
    (void)n_params;
    conv_state *st = (conv_state *)calloc(1, sizeof *st);
    if (!st)
        return 2;
    *state = st;
    if (cudnnCreate(&st->dnn) != CUDNN_STATUS_SUCCESS ||
        cudnnCreateTensorDescriptor(&st->x) != CUDNN_STATUS_SUCCESS ||
        cudnnCreateTensorDescriptor(&st->y) != CUDNN_STATUS_SUCCESS ||
        cudnnCreateFilterDescriptor(&st->w) != CUDNN_STATUS_SUCCESS ||
        cudnnCreateConvolutionDescriptor(&st->conv) != CUDNN_STATUS_SUCCESS)
        return 3;
    return cudnnSetStream(st->dnn, (cudaStream_t)env->stream) == CUDNN_STATUS_SUCCESS ? 0 : 4;
}

/* Descriptors, algorithm and workspace for this shape, when it is new. */
static int plan_for(const kbv_env *env, conv_state *st, const kbv_tensor *x, const kbv_tensor *w,
                    const kbv_tensor *y)
{
    plan want = {(int)x->shape[0], (int)x->shape[1], (int)x->shape[2], (int)x->shape[3],
                 (int)w->shape[0], (int)w->shape[2], (int)w->shape[3],
                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0};
    if (st->p.n == want.n && st->p.c == want.c && st->p.h == want.h && st->p.w == want.w &&
        st->p.k == want.k && st->p.r == want.r && st->p.s == want.s)
        return 0;
    if (cudnnSetTensor4dDescriptor(st->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, want.n, want.c,
                                   want.h, want.w) != CUDNN_STATUS_SUCCESS ||
        cudnnSetFilter4dDescriptor(st->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, want.k, want.c,
                                   want.r, want.s) != CUDNN_STATUS_SUCCESS ||
        cudnnSetConvolution2dDescriptor(st->conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT) != CUDNN_STATUS_SUCCESS ||
        cudnnSetConvolutionMathType(st->conv, CUDNN_FMA_MATH) != CUDNN_STATUS_SUCCESS)
        return 5;
    int on, ok, oh, ow;
    if (cudnnGetConvolution2dForwardOutputDim(st->conv, st->x, st->w, &on, &ok, &oh, &ow) !=
            CUDNN_STATUS_SUCCESS ||
        on != y->shape[0] || ok != y->shape[1] || oh != y->shape[2] || ow != y->shape[3])
        return 6;
    if (cudnnSetTensor4dDescriptor(st->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, ok, oh, ow) !=
        CUDNN_STATUS_SUCCESS)
        return 5;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    if (cudnnGetConvolutionForwardAlgorithm_v7(st->dnn, st->x, st->w, st->conv, st->y,
                                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf) !=
        CUDNN_STATUS_SUCCESS)
        return 7;
    int pick = -1;
    for (int i = 0; i < found && pick < 0; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= ((size_t)1 << 30))
            pick = i;
    if (pick < 0)
        return 7;
    if (st->p.workspace)
        env->release(env, st->p.workspace);
    st->p = want;
    st->p.algo = perf[pick].algo;
    st->p.workspace_bytes = perf[pick].memory;
    st->p.workspace = st->p.workspace_bytes ? env->alloc(env, st->p.workspace_bytes) : NULL;
    if (st->p.workspace_bytes && !st->p.workspace) {
        st->p.n = 0;
        return 8;
    }
    return 0;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs,
                           int n_outputs)
{
    conv_state *st = (conv_state *)state;
    const kbv_tensor *w = param(params, n_params, "conv.weight");
    const kbv_tensor *b = param(params, n_params, "conv.bias");
    if (!st || n_inputs != 1 || n_outputs != 1 || !w || !b || inputs[0].dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || inputs[0].ndim != 4 || w->ndim != 4 ||
        outputs[0].ndim != 4)
        return 1;
    const kbv_tensor *x = &inputs[0];
    kbv_tensor *y = &outputs[0];
    int bad = plan_for(env, st, x, w, y);
    if (bad)
        return bad;
    cudaStream_t stream = (cudaStream_t)env->stream;
    if (cudnnSetStream(st->dnn, stream) != CUDNN_STATUS_SUCCESS)
        return 4;
    const float one = 1.f, zero = 0.f;
    if (cudnnConvolutionForward(st->dnn, &one, st->x, x->data, st->w, w->data, st->conv,
                                st->p.algo, st->p.workspace, st->p.workspace_bytes, &zero, st->y,
                                y->data) != CUDNN_STATUS_SUCCESS)
        return 9;
    const long long hw = y->shape[2] * y->shape[3];
    const long long total = y->shape[0] * y->shape[1] * hw;
    const long long want = (total + 255) / 256;
    const int blocks = (int)(want < 132 * 16 ? (want > 0 ? want : 1) : 132 * 16);
    bias_mish_mish<<<blocks, 256, 0, stream>>>((float *)y->data, (const float *)b->data,
                                               (int)y->shape[1], hw, total);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
