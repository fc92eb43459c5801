// L1/41 max_pool1d(x, kernel_size=8, stride=1, padding=4, dilation=3) for
// x [N, C, L] -> [N, C, L_out], L_out = L + 2*4 - 3*7 - 1 + 1 = L - 13.
// The pooling constants are the problem's own (its constructor arguments), so
// they are compile-time constants here; N, C and L are read from the shapes.
// A block makes 2048 outputs of one row: it stages the 2048 + 21 inputs they
// need in shared memory with coalesced loads (positions outside [0, L) are the
// padding, -inf), then each thread makes 8 outputs 256 apart, so a warp's
// stores are 32 consecutive floats. Each input is read from global memory
// once (plus a 21-element halo per tile) instead of 8 times.
// A NaN in a window gives NaN, as PyTorch's CUDA kernel does.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

#define KSIZE 8
#define PAD 4
#define DIL 3
#define HALO ((KSIZE - 1) * DIL)                 // 21
#define THREADS 256
#define PER_THREAD 8
#define TILE (THREADS * PER_THREAD)              // outputs per block

__global__ void __launch_bounds__(THREADS)
maxpool1d(const float *__restrict__ x, float *__restrict__ y, long long L, long long L_out)
{
    __shared__ float in[TILE + HALO];
    const long long row = blockIdx.x;
    const long long o0 = (long long)blockIdx.y * TILE;      // first output of this tile
    const long long i0 = o0 - PAD;                          // input under its window start
    const float *xr = x + row * L;
    for (int j = threadIdx.x; j < TILE + HALO; j += THREADS) {
        long long i = i0 + j;
        in[j] = (i >= 0 && i < L) ? __ldg(xr + i) : -INFINITY;
    }
    __syncthreads();
    float *yr = y + row * L_out;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        int j = threadIdx.x + k * THREADS;
        if (o0 + j >= L_out) break;
        float m = in[j];
#pragma unroll
        for (int w = 1; w < KSIZE; w++) {
            float v = in[j + w * DIL];
            m = (v > m || v != v) ? v : m;
        }
        yr[o0 + j] = m;
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    const kbv_tensor *xt = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || xt->ndim != 3 || xt->dtype != KBV_F32) return 1;
    long long rows = xt->shape[0] * xt->shape[1], L = xt->shape[2];
    long long L_out = L + 2 * PAD - HALO - 1 + 1;           // stride 1
    if (L_out != outputs[0].shape[2]) return 1;
    if (rows == 0 || L_out <= 0) return 0;
    long long tiles = (L_out + TILE - 1) / TILE;
    if (rows > 0x7fffffffLL || tiles > 65535) return 1;
    dim3 grid((unsigned)rows, (unsigned)tiles);
    maxpool1d<<<grid, THREADS, 0, (cudaStream_t)env->stream>>>((const float *)xt->data,
                                                               (float *)outputs[0].data, L, L_out);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
