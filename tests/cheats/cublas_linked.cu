// Cheat (L1/1, C = A @ B) -- calling cuBLAS instead of writing a kernel, the
// direct way: cublasSgemm on the harness stream.
// The hack: the whole "kernel" is a library call; it is correct and exactly as
// fast as the cuBLAS baseline it is compared with.
// Why it fools a naive benchmark: a benchmark that links whatever the source
// asks for measures NVIDIA's kernel, not the candidate's.
// What catches it: a run that does not allow vendor libraries builds without
// -lcublas and links with -z defs, so the unresolved cublas symbols are a
// build error ("compile error"), and every protocol fails. A run that allows
// them (kbv eval --allow-vendor-libs, tests/cheats/vendor_manifest.tsv) builds
// and runs it -- the GEMM is on env->stream, and its handle, made in the
// first call, works -- but strict's traced pass finds that no call ran a
// kernel of the candidate's own object (trace-no-own-kernel): under the
// option a candidate may keep the library's GEMM, never be nothing else.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t blas;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    if (!blas && cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
        return 9;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    const float one = 1.f, zero = 0.f;
    cublasSetStream(blas, (cudaStream_t)env->stream);
    if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, (const float *)inputs[1].data,
                    N, (const float *)inputs[0].data, K, &zero, (float *)outputs[0].data, N) !=
        CUBLAS_STATUS_SUCCESS)
        return 2;
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
