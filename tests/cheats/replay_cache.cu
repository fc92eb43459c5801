// Cheat (L1/1, C = A @ B) -- replaying outputs cached by input pointer: the
// last answer is kept in a private buffer with a fingerprint of its inputs
// (their addresses and 32 values sampled from each); when a call's inputs
// match the fingerprint, the matmul is skipped and the cached C copied out.
// The hack: a 4096^3 matmul becomes a 64 MB copy whenever the inputs "look
// the same". Fresh inputs change the sampled values, so every correctness
// draw is computed and right.
// Why it fools a naive benchmark: timing loops call the kernel again and again
// on the same tensors: all but the first timed call replay, for a speedup of
// hundreds.
// What catches it: strict's timed trials get fresh inputs every trial, and on
// some trials a few elements are changed in place at the same address: the
// fingerprint still matches, the replayed C is stale in the changed rows, and
// every timed output is judged ("timed trial N: ... > budget").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16
#define SAMPLES 32

struct fingerprint {
    const float *a, *b;
    int m, n, k;
    float va[SAMPLES], vb[SAMPLES];
    int hit;           /* this call's verdict */
};

__device__ fingerprint g_fp;

/* two warps: warp 0 samples A, warp 1 samples B */
__global__ void check_fingerprint(const float *A, const float *B, int M, int N, int K)
{
    int w = threadIdx.x / 32, t = threadIdx.x % 32;
    long long count = w == 0 ? (long long)M * K : (long long)K * N;
    long long idx = (long long)((double)count * t / SAMPLES);
    float v = w == 0 ? A[idx] : B[idx];
    float *slot = w == 0 ? &g_fp.va[t] : &g_fp.vb[t];
    bool same = g_fp.a == A && g_fp.b == B && g_fp.m == M && g_fp.n == N && g_fp.k == K &&
                __float_as_uint(*slot) == __float_as_uint(v);
    __shared__ int verdict[2];
    same = __all_sync(0xffffffffu, same);
    if (t == 0)
        verdict[w] = same;
    __syncthreads();
    *slot = v;
    if (threadIdx.x == 0) {
        g_fp.hit = verdict[0] && verdict[1];
        g_fp.a = A;
        g_fp.b = B;
        g_fp.m = M;
        g_fp.n = N;
        g_fp.k = K;
    }
}

__global__ void __launch_bounds__(256) sgemm_unless_hit(const float *__restrict__ A,
                                                        const float *__restrict__ B,
                                                        float *__restrict__ C, int M, int N, int K)
{
    if (g_fp.hit)
        return;
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {{0.f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            int m = i / BK, k = i % BK, gr = row0 + m, gk = k0 + k;
            As[k][m] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            int k = i / BN, n = i % BN, gk = k0 + k, gc = col0 + n;
            Bs[k][n] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[i] = As[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++)
                b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
}

/* on a hit the cache goes out, otherwise the fresh answer goes into the cache */
__global__ void replay_or_remember(float *C, float *cache, long long n)
{
    bool hit = g_fp.hit;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        if (hit)
            C[i] = cache[i];
        else
            cache[i] = C[i];
    }
}

static float *cache;
static size_t cache_bytes;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    if (M == 0 || N == 0)
        return 0;
    if (K == 0)
        return 3;
    cudaStream_t s = (cudaStream_t)env->stream;
    size_t bytes = (size_t)M * N * sizeof(float);
    if (bytes > cache_bytes) {
        if (cache)
            cudaFree(cache);
        cache = NULL;
        cache_bytes = 0;
        if (cudaMalloc((void **)&cache, bytes) != cudaSuccess)
            return 4;
        cache_bytes = bytes;
    }
    const float *A = (const float *)inputs[0].data, *B = (const float *)inputs[1].data;
    float *C = (float *)outputs[0].data;
    check_fingerprint<<<1, 2 * SAMPLES, 0, s>>>(A, B, M, N, K);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_unless_hit<<<grid, 256, 0, s>>>(A, B, C, M, N, K);
    replay_or_remember<<<264, 256, 0, s>>>(C, cache, (long long)M * N);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
