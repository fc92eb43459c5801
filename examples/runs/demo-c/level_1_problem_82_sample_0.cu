// L1/82 depthwise conv2d, 3x3, stride 1, no padding, no bias:
// x [N, C, H, W], weight [C, 1, 3, 3] -> y [N, C, H-2, W-2], channel c of y
// filtered only by channel c of x (groups = C).
// A direct convolution: a block makes a 16 x 64 tile of one (n, c) plane. It
// stages the 18 x 66 input patch in shared memory (coalesced row loads) and
// keeps the channel's 9 weights in registers; each thread makes a column of
// 4 outputs, walking 6 input rows and reusing each row for up to 3 outputs
// (18 shared loads for 4 outputs instead of 36). A warp's loads and stores
// are 32 consecutive floats. Accumulation is float FMA over the 9 taps, as
// PyTorch's own depthwise kernel (no TF32 is involved).
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define K 3
#define TW 64                     // tile width (= blockDim.x)
#define ROWS_PER_THREAD 4
#define TH (4 * ROWS_PER_THREAD)  // tile height (blockDim.y = 4)
#define IN_W (TW + K - 1)
#define IN_H (TH + K - 1)

__global__ void __launch_bounds__(TW * 4)
depthwise3x3(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
             long long planes, int C, int H, int W)
{
    __shared__ float in[IN_H][IN_W];
    const int Ho = H - K + 1, Wo = W - K + 1;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TW + tx;
    const int ox0 = blockIdx.x * TW, oy0 = blockIdx.y * TH;
    for (long long p = blockIdx.z; p < planes; p += gridDim.z) {       // p = n * C + c
        const float *xp = x + p * H * W;
        const float *wc = w + (p % C) * K * K;
        float wr[K * K];
#pragma unroll
        for (int i = 0; i < K * K; i++) wr[i] = __ldg(wc + i);
        for (int j = tid; j < IN_H * IN_W; j += TW * 4) {
            int r = j / IN_W, c = j % IN_W;
            int gy = oy0 + r, gx = ox0 + c;
            in[r][c] = (gy < H && gx < W) ? __ldg(xp + (long long)gy * W + gx) : 0.f;
        }
        __syncthreads();
        float acc[ROWS_PER_THREAD];
#pragma unroll
        for (int i = 0; i < ROWS_PER_THREAD; i++) acc[i] = 0.f;
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD + K - 1; r++) {
            float a = in[ty * ROWS_PER_THREAD + r][tx], b = in[ty * ROWS_PER_THREAD + r][tx + 1],
                  c = in[ty * ROWS_PER_THREAD + r][tx + 2];
#pragma unroll
            for (int i = 0; i < ROWS_PER_THREAD; i++) {
                const int kr = r - i;                   // kernel row this input row is for output i
                if (kr >= 0 && kr < K) {
                    acc[i] = fmaf(wr[kr * K + 0], a, acc[i]);
                    acc[i] = fmaf(wr[kr * K + 1], b, acc[i]);
                    acc[i] = fmaf(wr[kr * K + 2], c, acc[i]);
                }
            }
        }
        const int ox = ox0 + tx;
        float *yp = y + p * (long long)Ho * Wo;
#pragma unroll
        for (int i = 0; i < ROWS_PER_THREAD; i++) {
            int oy = oy0 + ty * ROWS_PER_THREAD + i;
            if (oy < Ho && ox < Wo) yp[(long long)oy * Wo + ox] = acc[i];
        }
        __syncthreads();                                // the patch is reused for the next plane
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state;
    const kbv_tensor *xt = &inputs[0], *wt = &params[0];
    if (n_inputs != 1 || n_params != 1 || n_outputs != 1 || xt->ndim != 4 || wt->ndim != 4 ||
        xt->dtype != KBV_F32 || wt->dtype != KBV_F32)
        return 1;
    long long N = xt->shape[0], C = xt->shape[1], H = xt->shape[2], W = xt->shape[3];
    if (wt->shape[0] != C || wt->shape[1] != 1 || wt->shape[2] != K || wt->shape[3] != K ||
        H < K || W < K || H > 0x7fffffffLL || W > 0x7fffffffLL)
        return 1;
    long long planes = N * C, Ho = H - K + 1, Wo = W - K + 1;
    if (planes == 0) return 0;
    long long gx = (Wo + TW - 1) / TW, gy = (Ho + TH - 1) / TH;
    if (gx > 0x7fffffffLL || gy > 65535) return 1;
    dim3 block(TW, 4), grid((unsigned)gx, (unsigned)gy, (unsigned)(planes < 65535 ? planes : 65535));
    depthwise3x3<<<grid, block, 0, (cudaStream_t)env->stream>>>(
        (const float *)xt->data, (const float *)wt->data, (float *)outputs[0].data, planes, (int)C,
        (int)H, (int)W);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
