// L2/1 Conv2D_ReLU_BiasAdd: y = relu(conv2d(x, W) + conv.bias) + bias, a 3x3
// convolution, stride 1, no padding; bias [out_channels, 1, 1] is added after
// the ReLU. One kernel, a direct convolution with the whole epilogue fused:
// a block computes a 16x16 tile of the output for 16 output channels (one
// output pixel and 16 accumulators per thread), walking the input channels
// four at a time: their 18x18 input patches and the 16 x 4 x 9 weights are
// staged in shared memory, the weights laid out so one 16-byte broadcast read
// gives four output channels' tap. Zero-padded tiles at the edges: any batch,
// channel count and image size works (3x3 kernels only).
// Plain FP32, slower than cuDNN: an honest fused first attempt.
// Expected (examples/runs/demo-l2/EXPECTED.tsv): standard and strict pass;
// verified fails at D2 (x3), because the paper's reference is cuDNN with TF32
// (PyTorch's default) and this exact FP32 convolution is more than 1e-3 from
// it on a few elements (2732 of 260 million on the H200).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <string.h>

#define TILE 16  /* output tile, square */
#define KC 16    /* output channels per block */
#define CC 4     /* input channels per stage */
#define PATCH (TILE + 2)

/* Tensor `name` among params (NULL when absent or not float32). */
static const kbv_tensor *param(const kbv_tensor *params, int n_params, const char *name)
{
    for (int i = 0; i < n_params; i++)
        if (!strcmp(params[i].name, name))
            return params[i].dtype == KBV_F32 ? &params[i] : NULL;
    return NULL;
}

/* x [N, C, H, W], w [K, C, 3, 3], y [N, K, H - 2, W - 2]. blockIdx.x: the
 * output tile, blockIdx.y: the group of KC output channels, blockIdx.z
 * strides over the batch. */
__global__ void __launch_bounds__(256)
conv3x3_relu_bias(const float *__restrict__ x, const float *__restrict__ w,
                  const float *__restrict__ conv_bias, const float *__restrict__ bias,
                  float *__restrict__ y, int N, int C, int H, int W, int K)
{
    __shared__ float patch[CC][PATCH][PATCH];
    __shared__ __align__(16) float taps[CC * 9][KC]; /* [input channel, tap][output channel] */
    const int OH = H - 2, OW = W - 2;
    const int tiles_w = (OW + TILE - 1) / TILE;
    const int oh0 = (blockIdx.x / tiles_w) * TILE, ow0 = (blockIdx.x % tiles_w) * TILE;
    const int k0 = blockIdx.y * KC;
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    for (int n = blockIdx.z; n < N; n += gridDim.z) {
        float acc[KC];
#pragma unroll
        for (int k = 0; k < KC; k++)
            acc[k] = 0.f;
        for (int c0 = 0; c0 < C; c0 += CC) {
            for (int i = threadIdx.x; i < CC * PATCH * PATCH; i += 256) {
                const int cc = i / (PATCH * PATCH), r = i / PATCH % PATCH, s = i % PATCH;
                const int c = c0 + cc, ih = oh0 + r, iw = ow0 + s;
                patch[cc][r][s] = (c < C && ih < H && iw < W)
                                      ? x[(((size_t)n * C + c) * H + ih) * W + iw]
                                      : 0.f;
            }
            for (int i = threadIdx.x; i < CC * 9 * KC; i += 256) {
                const int k = i % KC, ct = i / KC, c = c0 + ct / 9;
                taps[ct][k] = (k0 + k < K && c < C) ? w[((size_t)(k0 + k) * C + c) * 9 + ct % 9]
                                                    : 0.f;
            }
            __syncthreads();
#pragma unroll
            for (int cc = 0; cc < CC; cc++)
#pragma unroll
                for (int t = 0; t < 9; t++) {
                    const float v = patch[cc][ty + t / 3][tx + t % 3];
                    const float4 *tap = reinterpret_cast<const float4 *>(taps[cc * 9 + t]);
#pragma unroll
                    for (int q = 0; q < KC / 4; q++) {
                        const float4 wq = tap[q];
                        acc[4 * q + 0] = fmaf(v, wq.x, acc[4 * q + 0]);
                        acc[4 * q + 1] = fmaf(v, wq.y, acc[4 * q + 1]);
                        acc[4 * q + 2] = fmaf(v, wq.z, acc[4 * q + 2]);
                        acc[4 * q + 3] = fmaf(v, wq.w, acc[4 * q + 3]);
                    }
                }
            __syncthreads();
        }
        const int oh = oh0 + ty, ow = ow0 + tx;
        if (oh < OH && ow < OW)
#pragma unroll
            for (int k = 0; k < KC; k++) {
                const int kk = k0 + k;
                if (kk >= K)
                    break;
                float v = acc[k] + conv_bias[kk];
                v = v < 0.f ? 0.f : v; /* torch.relu: NaN stays NaN */
                y[(((size_t)n * K + kk) * OH + oh) * OW + ow] = v + bias[kk];
            }
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs,
                           int n_outputs)
{
    (void)state;
    const kbv_tensor *w = param(params, n_params, "conv.weight");
    const kbv_tensor *cb = param(params, n_params, "conv.bias");
    const kbv_tensor *b = param(params, n_params, "bias");
    const kbv_tensor *x = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || !w || !cb || !b || x->dtype != KBV_F32 ||
        outputs[0].dtype != KBV_F32 || x->ndim != 4 || w->ndim != 4 || w->shape[1] != x->shape[1] ||
        w->shape[2] != 3 || w->shape[3] != 3 || x->shape[2] < 3 || x->shape[3] < 3)
        return 1;
    const int N = (int)x->shape[0], C = (int)x->shape[1], H = (int)x->shape[2],
              W = (int)x->shape[3], K = (int)w->shape[0];
    const int tiles = ((H - 2 + TILE - 1) / TILE) * ((W - 2 + TILE - 1) / TILE);
    const dim3 grid(tiles, (K + KC - 1) / KC, N < 65535 ? N : 65535);
    conv3x3_relu_bias<<<grid, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)x->data, (const float *)w->data, (const float *)cb->data,
        (const float *)b->data, (float *)outputs[0].data, N, C, H, W, K);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
