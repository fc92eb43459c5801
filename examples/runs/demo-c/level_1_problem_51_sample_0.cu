// L1/51 torch.argmax(x, dim=1) for x[B, K, N] -> int64 [B, N]: a strided
// reduction, like L1/47 but carrying (value, index).
// A block owns 32 neighbouring outputs of one batch and has 8 warps: lane j
// takes column j (one 128-byte line per warp and k), warp w takes
// k = w, w+8, ... in increasing order, unrolled by 8 for loads in flight. The
// 8 candidates per column are merged in shared memory. PyTorch's rules are
// kept: the first index wins a tie (ties are common under the D8
// distribution), and a NaN beats every number (the first NaN's index).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define COLS 32
#define SLICES 8
#define UNROLL 8

// Is (v, i) a better argmax than (bv, bi)? NaN wins; ties go to the lower index.
__device__ __forceinline__ bool better(float v, long long i, float bv, long long bi)
{
    bool vn = v != v, bn = bv != bv;
    if (vn || bn) return vn && (!bn || i < bi);
    return v > bv || (v == bv && i < bi);
}

__global__ void __launch_bounds__(COLS *SLICES)
argmax_dim1(const float *__restrict__ x, int64_t *__restrict__ y, long long K, long long N)
{
    __shared__ float best_v[SLICES][COLS];
    __shared__ long long best_i[SLICES][COLS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long n = (long long)blockIdx.x * COLS + tx;
    const long long b = blockIdx.y;
    float bv = 0.f;
    long long bi = -1;                     // none yet (a slice may be empty when K < 8)
    if (n < N) {
        const float *p = x + b * K * N + n;
        long long k = ty;
        for (; k + (UNROLL - 1) * SLICES < K; k += UNROLL * SLICES) {
            float v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) v[u] = __ldg(p + (k + u * SLICES) * N);
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                // k increases along the slice: strictly better only, so the
                // first of equal values stays; a NaN is taken once and kept
                long long i = k + u * SLICES;
                if (bi < 0 || (bv == bv && (v[u] > bv || v[u] != v[u]))) { bv = v[u]; bi = i; }
            }
        }
        for (; k < K; k += SLICES) {
            float v = __ldg(p + k * N);
            if (bi < 0 || (bv == bv && (v > bv || v != v))) { bv = v; bi = k; }
        }
    }
    best_v[ty][tx] = bv;
    best_i[ty][tx] = bi;
    __syncthreads();
    if (ty == 0 && n < N) {
        for (int w = 1; w < SLICES; w++) {
            long long i = best_i[w][tx];
            if (i >= 0 && (bi < 0 || better(best_v[w][tx], i, bv, bi))) { bv = best_v[w][tx]; bi = i; }
        }
        y[b * N + n] = bi;
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    const kbv_tensor *x = &inputs[0];
    if (n_inputs != 1 || n_outputs != 1 || x->ndim < 2 || x->dtype != KBV_F32 ||
        outputs[0].dtype != KBV_I64 || x->shape[1] == 0)
        return 1;
    long long B = x->shape[0], K = x->shape[1], N = 1;          // reduce dim 1
    for (int d = 2; d < x->ndim; d++) N *= x->shape[d];
    if (B == 0 || N == 0) return 0;
    if (B > 65535 || (N + COLS - 1) / COLS > 0x7fffffffLL) return 1;
    dim3 block(COLS, SLICES), grid((unsigned)((N + COLS - 1) / COLS), (unsigned)B);
    argmax_dim1<<<grid, block, 0, (cudaStream_t)env->stream>>>((const float *)x->data,
                                                               (int64_t *)outputs[0].data, K, N);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
