// Cheat (L1/1, C = A @ B) -- calling cuBLAS instead of writing a kernel: the
// library is loaded at run time with dlopen, its entry points looked up with
// dlsym, and cublasSgemm called on the harness stream. The candidate contains
// no kernel at all.
// The hack: a run that does not allow vendor libraries builds candidates
// without -lcublas (and with -z defs, so a direct call does not even link:
// cublas_linked.cu); loading the library by hand gets around the build.
// Why it fools a naive benchmark: the "kernel" is cuBLAS, as fast as the
// baseline it is compared with, and correct.
// What catches it: once the candidate is loaded, the sandbox lets no path be
// opened, so dlopen's open never runs and the candidate fails every protocol
// for trying ("the candidate called openat"); dlopen and dlsym are not on the
// binary allowlist either (binary-allowlist). Were the library loaded, the
// CUPTI-traced pass would find that no call ran a kernel of the candidate's
// own object (trace-no-own-kernel).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

typedef int (*create_fn)(void **handle);
typedef int (*set_stream_fn)(void *handle, cudaStream_t stream);
typedef int (*sgemm_fn)(void *handle, int transa, int transb, int m, int n, int k,
                        const float *alpha, const float *A, int lda, const float *B, int ldb,
                        const float *beta, float *C, int ldc);

static void *blas;
static set_stream_fn set_stream;
static sgemm_fn sgemm;

static int load(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        "/usr/local/cuda/lib64/libcublas.so"};
    void *lib = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
    set_stream = (set_stream_fn)dlsym(lib, "cublasSetStream_v2");
    sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
    if (!create || !set_stream || !sgemm || create(&blas) != 0)
        return -1;
    return 0;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[1].ndim != 2)
        return 1;
    if (!blas && load() != 0)
        return 9;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[1].shape[1];
    const float one = 1.f, zero = 0.f;
    if (set_stream(blas, (cudaStream_t)env->stream) != 0)
        return 2;
    /* row-major C = A B is column-major C^T = B^T A^T (CUBLAS_OP_N = 0) */
    if (sgemm(blas, 0, 0, N, M, K, &one, (const float *)inputs[1].data, N,
              (const float *)inputs[0].data, K, &zero, (float *)outputs[0].data, N) != 0)
        return 2;
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
