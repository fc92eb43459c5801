// Cheat (L1/12, C = diag(A) @ B) -- no kernel of its own: the inputs are
// copied to the host, the rows of B are scaled there, and the result copied
// back; the GPU only ever runs copies.
// The hack: the work is done by something other than the candidate's GPU
// code (here the host; elsewhere a vendor library, as in cublas_dlopen.cu).
// Copies on the harness stream are allowed, the result is exact, and the time
// is honest (slow), so nothing about the numbers or the imports is wrong.
// Why it fools a naive benchmark: it measures whatever happens between its
// events and calls it "the kernel".
// What catches it: the CUPTI-traced pass, which requires every call to run at
// least one kernel defined in the candidate's own object (trace-no-own-kernel).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdlib.h>

static float *host_a, *host_b;
static size_t cap_a, cap_b;

static int reserve(float **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return 0;
    free(*p);
    *p = (float *)malloc(bytes);
    *cap = *p ? bytes : 0;
    return *p ? 0 : -1;
}

/* waits for the stream with the allowed query call */
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
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 1 || inputs[1].ndim != 2)
        return 1;
    size_t n = (size_t)inputs[1].shape[0], m = (size_t)inputs[1].shape[1];
    if (n * m == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (reserve(&host_a, &cap_a, n * sizeof(float)) || reserve(&host_b, &cap_b, n * m * sizeof(float)))
        return 4;
    if (cudaMemcpyAsync(host_a, inputs[0].data, n * sizeof(float), cudaMemcpyDeviceToHost, s) !=
            cudaSuccess ||
        cudaMemcpyAsync(host_b, inputs[1].data, n * m * sizeof(float), cudaMemcpyDeviceToHost,
                        s) != cudaSuccess ||
        drain(s) != cudaSuccess)
        return 2;
    for (size_t i = 0; i < n; i++) {
        float a = host_a[i];
        float *row = host_b + i * m;
        for (size_t j = 0; j < m; j++)
            row[j] *= a;
    }
    /* from pageable memory the call returns once the data is staged */
    if (cudaMemcpyAsync(outputs[0].data, host_b, n * m * sizeof(float), cudaMemcpyHostToDevice,
                        s) != cudaSuccess)
        return 2;
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
