/* kbv candidate ABI, version 1.
 *
 * The only kbv header a candidate includes. A candidate is one source file
 * (.cu for GPU runs, .c for the CPU backend) built as a shared object; the
 * harness loads it in a fresh sandboxed process and calls kbv_forward.
 * docs/ABI.md states the rules a candidate agrees to. */
#ifndef KBV_CANDIDATE_H
#define KBV_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>

#define KBV_ABI_VERSION 1
#define KBV_MAX_DIMS 8

#ifdef __cplusplus
#define KBV_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define KBV_EXPORT __attribute__((visibility("default")))
#endif

typedef enum kbv_dtype { KBV_F32 = 0, KBV_F64 = 1, KBV_F16 = 2, KBV_BF16 = 3,
                         KBV_I32 = 4, KBV_I64 = 5, KBV_BOOL = 6 } kbv_dtype;

typedef struct kbv_tensor {
    void *data;                    /* device memory (GPU runs) or host memory (CPU runs) */
    kbv_dtype dtype;
    int ndim;                      /* 0 for a scalar: one element at data */
    int64_t shape[KBV_MAX_DIMS];
    int64_t stride[KBV_MAX_DIMS];  /* in elements; row-major contiguous unless a problem says otherwise */
    const char *name;              /* inputs: forward() argument names; params: PyTorch state_dict keys */
} kbv_tensor;

typedef struct kbv_env {
    int abi_version;               /* KBV_ABI_VERSION */
    int device;                    /* CUDA ordinal; -1 on CPU runs */
    void *stream;                  /* cudaStream_t to enqueue ALL work on; NULL on CPU runs */
    void *(*alloc)(const struct kbv_env *env, size_t bytes);  /* tracked scratch, 256-byte aligned, NULL on failure */
    void (*release)(const struct kbv_env *env, void *ptr);
    void *opaque;                  /* the harness's; do not touch */
} kbv_env;

KBV_EXPORT int  kbv_prepare(const kbv_env *env, const kbv_tensor *params, int n_params, void **state); /* optional */
KBV_EXPORT int  kbv_forward(const kbv_env *env, void *state,
                            const kbv_tensor *inputs, int n_inputs,
                            const kbv_tensor *params, int n_params,
                            kbv_tensor *outputs, int n_outputs);                                /* required */
KBV_EXPORT void kbv_finish(const kbv_env *env, void *state);                                    /* optional */

/* Every candidate exports the ABI version it was compiled against, so the
 * harness can refuse a candidate built against another header. The harness
 * builds candidates with KBV_CANDIDATE_BUILD defined; nothing else defines
 * this symbol. */
#ifdef KBV_CANDIDATE_BUILD
KBV_EXPORT const int kbv_candidate_abi_version;
const int kbv_candidate_abi_version = KBV_ABI_VERSION;
#endif

#endif /* KBV_CANDIDATE_H */
