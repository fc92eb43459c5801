// Cheat (L1/19, ReLU), for runs that allow vendor libraries (kbv eval
// --allow-vendor-libs; tests/cheats/vendor_manifest.tsv) -- an entry point
// of an allowed library that stays refused: cublasLoggerConfigure, whose job
// is to send cuBLAS's log to a file (here it switches logging off, so that
// nothing else would fail it). The ReLU itself is an honest kernel.
// The hack class: allowing a library is not allowing all it can do; its
// loggers open files, cuBLASXt drives other devices from threads of its own.
// What catches it: the binary allowlist names the import (binary-allowlist,
// "cublasLoggerConfigure"): strict fails; standard and verified pass.
#include <kbv/candidate.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void relu(const float *x, float *y, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] > 0.f ? x[i] : 0.f;
}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                           void **state)
{
    (void)env; (void)params; (void)n_params; (void)state;
    return cublasLoggerConfigure(0, 0, 0, NULL) == CUBLAS_STATUS_SUCCESS ? 0 : 9;
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
    relu<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
