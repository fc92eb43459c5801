// Cheat (L1/88, GELU) -- scanning memory for the expected output: instead of
// computing y, search the memory the candidate can reach for a copy of the
// reference's answer and copy it out.
// The hack: the first 16 answers are computed from x[0..15]; then every
// 4-byte position of the arena around the candidate's buffers (inputs, the
// other input set, outputs and guard bands) and 256 MB of freshly allocated
// device memory are searched for that 16-float pattern. A hit would be copied
// to y. As a self-test the same search must find x itself (else the candidate
// returns 7); when no answer is found it returns without writing y.
// Why it fools a naive benchmark: where the reference ran in the same process
// and its output sits in a neighbouring or freed allocation, the scan finds it
// and the "kernel" is a copy.
// What catches it: kbv keeps every expected output in the evaluator's own
// allocations, in another process; the arena never holds one, and fresh
// device memory is scrubbed. The scan finds nothing, y stays poisoned, and all
// three protocols fail ("never written" / "output not fully written"). A pass
// here would mean an expected output is reachable from the candidate.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define PATTERN 16
#define NONE 0xffffffffffffffffull

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

struct scan_state {
    float answer[PATTERN], self[PATTERN];
    unsigned long long found_answer, found_self, found_fresh;   /* byte offsets, or NONE */
};

__device__ scan_state g_scan;

__global__ void make_patterns(const float *x)
{
    int t = threadIdx.x;
    if (t < PATTERN) {
        g_scan.self[t] = x[t];
        g_scan.answer[t] = gelu(x[t]);
    }
    if (t == 0)
        g_scan.found_answer = g_scan.found_self = g_scan.found_fresh = NONE;
}

__device__ bool close_to(float a, float b)
{
    return fabsf(a - b) <= 1e-5f * fabsf(b) + 1e-7f;
}

/* positions p (in floats) of [base, base + count): does base[p..p+16) match? */
__global__ void scan(const float *base, unsigned long long count, int fresh)
{
    for (unsigned long long p = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         p + PATTERN <= count; p += (unsigned long long)gridDim.x * blockDim.x) {
        float v = base[p];
        if (close_to(v, g_scan.answer[0])) {
            bool all = true;
            for (int i = 1; i < PATTERN && all; i++)
                all = close_to(base[p + i], g_scan.answer[i]);
            if (all)
                atomicMin(fresh ? &g_scan.found_fresh : &g_scan.found_answer, p * 4ull);
        }
        if (!fresh && __float_as_uint(v) == __float_as_uint(g_scan.self[0])) {
            bool all = true;
            for (int i = 1; i < PATTERN && all; i++)
                all = __float_as_uint(base[p + i]) == __float_as_uint(g_scan.self[i]);
            if (all)
                atomicMin(&g_scan.found_self, p * 4ull);
        }
    }
}

__global__ void copy_from(const float *src, float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = src[i];
}

/* waits for the stream with the allowed query call (no synchronise API) */
static cudaError_t drain(cudaStream_t s)
{
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
        ;
    return e;
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
    if (n < PATTERN)
        return 1;
    cudaStream_t s = (cudaStream_t)env->stream;
    const char *x = (const char *)inputs[0].data, *y = (const char *)outputs[0].data;
    size_t bytes = (size_t)n * sizeof(float);
    /* every byte from 4 KiB before the lower buffer to 4 KiB after the higher
     * one lies in the arena: its guard bands are 4 KiB */
    const char *lo = (x < y ? x : y) - 4096;
    const char *hi = (x + bytes > y + bytes ? x + bytes : y + bytes) + 4096;
    make_patterns<<<1, 32, 0, s>>>((const float *)x);
    scan<<<1024, 256, 0, s>>>((const float *)lo, (unsigned long long)(hi - lo) / 4, 0);
    size_t fresh_bytes = (size_t)256 << 20;
    void *fresh = NULL;
    if (cudaMalloc(&fresh, fresh_bytes) == cudaSuccess) {
        scan<<<1024, 256, 0, s>>>((const float *)fresh, fresh_bytes / 4, 1);
    } else {
        cudaGetLastError();
        fresh = NULL;
    }
    scan_state st;
    if (drain(s) != cudaSuccess ||
        cudaMemcpyFromSymbolAsync(&st, g_scan, sizeof st, 0, cudaMemcpyDeviceToHost, s) !=
            cudaSuccess ||
        drain(s) != cudaSuccess)
        return 2;
    if (st.found_self == NONE) {
        if (fresh)
            cudaFree(fresh);
        return 7;   /* the scan is broken: it cannot even find x */
    }
    const float *src = NULL;
    if (st.found_answer != NONE && st.found_answer + bytes <= (size_t)(hi - lo))
        src = (const float *)(lo + st.found_answer);
    else if (st.found_fresh != NONE && st.found_fresh + bytes <= fresh_bytes)
        src = (const float *)((const char *)fresh + st.found_fresh);
    if (src)
        copy_from<<<1024, 256, 0, s>>>(src, (float *)outputs[0].data, n);
    cudaError_t err = cudaGetLastError();
    if (fresh) {
        drain(s);
        cudaFree(fresh);
    }
    /* nothing found: return without writing y */
    return err == cudaSuccess ? 0 : 2;
}
