// Cheat (L1/1, C = A @ B), for runs that allow vendor libraries (kbv eval
// --allow-vendor-libs; tests/cheats/vendor_manifest.tsv) -- cuBLAS off the
// harness stream: cublasSgemm on the handle's default stream (the legacy
// default stream; cublasSetStream is never called), and a kernel of its own,
// which does nothing, on env->stream.
// The hack: the harness times env->stream with events; the GEMM runs beside
// it, unseen by them, and still lands before the outputs are read (the
// runner synchronises the device after each call). The empty kernel is
// there so that every call runs a kernel of the candidate's own object.
// Why it fools a naive benchmark: correct, and "faster" than any GEMM can be.
// What catches it: strict's traced pass finds cuBLAS's kernel on a stream
// other than the harness's (trace-foreign-stream). The time on env->stream
// was expected to fall below the GEMM's speed-of-light bound too, but on the
// H200 (2026-12-01) it did not (below-sol did not fire: the legacy default
// stream's GEMM was not hidden from the events there), so the traced pass
// alone is expected.
#include <kbv/candidate.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdlib.h>

__global__ void nothing(void) {}

KBV_EXPORT int kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                           void **state)
{
    (void)env; (void)params; (void)n_params;
    cublasHandle_t h = NULL;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return 9;
    *state = h;
    return 0;
}

KBV_EXPORT void kbv_finish(const kbv_env *env, void *state)
{
    (void)env;
    if (state)
        cublasDestroy((cublasHandle_t)state);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)params; (void)n_params;
    if (!state || n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    const float one = 1.f, zero = 0.f;
    /* row-major C = A B is column-major C^T = B^T A^T */
    if (cublasSgemm((cublasHandle_t)state, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                    (const float *)inputs[1].data, N, (const float *)inputs[0].data, K, &zero,
                    (float *)outputs[0].data, N) != CUBLAS_STATUS_SUCCESS)
        return 2;
    nothing<<<1, 32, 0, (cudaStream_t)env->stream>>>();
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
