// Honest control (L1/47, sum over dim 1 with keepdim): float accumulation in
// another association order than the baseline's. One thread per output
// (neighbouring threads read neighbouring addresses); it walks the reduced
// dim from the last element down in blocks of 16, and joins the block sums
// pairwise with a binary counter (a stack of partial sums, the two newest
// merged whenever they cover equally many blocks): a balanced tree. It must
// pass every protocol with no failing flag.
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define BLOCK 16
#define LEVELS 40

__global__ void __launch_bounds__(256)
sum_dim1(const float *__restrict__ x, float *__restrict__ y, long long b, long long n, long long m)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= b * m)
        return;
    long long i = t / m, k = t % m;
    const float *col = x + i * n * m + k;
    float stack[LEVELS];
    unsigned long long count = 0;   /* blocks pushed; bit l set: a sum of 2^l blocks at level l */
    int top = 0;
    for (long long j0 = n - 1; j0 >= 0; j0 -= BLOCK) {
        float s = 0.f;
        for (long long j = j0; j > j0 - BLOCK && j >= 0; j--)
            s += col[j * m];
        /* merge while the newest entry holds as many blocks as s */
        for (unsigned long long c = count; c & 1ull; c >>= 1)
            s = stack[--top] + s;
        stack[top++] = s;
        count++;
    }
    float total = 0.f;
    while (top > 0)
        total = stack[--top] + total;
    y[t] = total;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 3 || inputs[0].dtype != KBV_F32)
        return 1;
    long long b = inputs[0].shape[0], n = inputs[0].shape[1], m = inputs[0].shape[2];
    if (b * m == 0)
        return 0;
    sum_dim1<<<(unsigned)((b * m + 255) / 256), 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, b, n, m);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
