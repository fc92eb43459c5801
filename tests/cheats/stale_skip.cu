// Cheat (L1/88, GELU) -- stale memory between calls: when a call's input looks
// like the previous call's (same address, same 32 sampled values), skip the
// work and leave the output buffer as the previous call left it.
// The hack: a device-side fingerprint (pointer plus 32 values spread over x)
// is compared with the last call's; on a match the GELU kernel returns at
// once. Fresh inputs give a fresh fingerprint, so every correctness draw is
// computed and right.
// Why it fools a naive benchmark: timing loops call the kernel many times on
// the same input and the same output buffer without touching it in between:
// after the first call every timed call is a no-op that "produces" the right
// answer.
// What catches it: strict poisons the outputs before every timed trial and
// changes a few input elements in place at the same address on some trials;
// the skipped call leaves the poison there ("timed trial N: output not fully
// written").
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define SAMPLES 32

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

struct fingerprint {
    const float *x;
    long long n;
    float v[SAMPLES];
    int same;          /* this call's verdict */
};

__device__ fingerprint g_fp;

/* one warp: compare x with the stored fingerprint, store the new one */
__global__ void check_fingerprint(const float *x, long long n)
{
    int t = threadIdx.x;
    long long idx = (long long)((double)n * t / SAMPLES);
    float v = x[idx];
    bool same = g_fp.x == x && g_fp.n == n && __float_as_uint(g_fp.v[t]) == __float_as_uint(v);
    same = __all_sync(0xffffffffu, same);
    __syncwarp();
    g_fp.v[t] = v;
    if (t == 0) {
        g_fp.x = x;
        g_fp.n = n;
        g_fp.same = same;
    }
}

__global__ void gelu_unless_same(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    if (g_fp.same)
        return;   /* "the output already holds this answer" */
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    if (n == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    check_fingerprint<<<1, SAMPLES, 0, s>>>((const float *)inputs[0].data, n);
    gelu_unless_same<<<(unsigned)blocks, 256, 0, s>>>((const float *)inputs[0].data,
                                                      (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
