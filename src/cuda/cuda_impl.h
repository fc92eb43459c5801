/* The CUDA backend's private state and the functions its files share. */
#ifndef KBV_CUDA_IMPL_H
#define KBV_CUDA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda/cuda_launch.h"
#include "exec/backend.h"

/* ---- caching allocator (cuda_alloc.c) ---- */

/* PyTorch's rounding of requests; memory_allocated counts rounded sizes. */
#define KBV_CUDA_ALLOC_ROUND 512u

typedef struct kbv_cuda_block {
    void *ptr;
    size_t bytes;   /* rounded size: the block's real size */
} kbv_cuda_block;

typedef struct kbv_cuda_alloc {
    kbv_cuda_block *live;       /* handed out */
    size_t n_live, cap_live;
    kbv_cuda_block *cached;     /* free, kept for reuse */
    size_t n_cached, cap_cached;
    size_t current, peak;       /* bytes of live blocks, as torch.cuda.memory_allocated */
    size_t cached_bytes;
    bool registered;            /* on the process's list, whose caches a failed cudaMalloc trims */
} kbv_cuda_alloc;

size_t kbv_cuda_round_bytes(size_t bytes);
/* A block of at least `bytes` (a cached one of the same rounded size when
 * there is one); on cudaMalloc failure trims the caches of every allocator
 * of the process (one per precision mode share the device) and retries once.
 * bytes == 0 gives NULL and counts nothing. */
kbv_status kbv_cuda_alloc_get(kbv_cuda_alloc *a, size_t bytes, void **ptr);
/* Returns a live block to the cache; NULL is a no-op. */
kbv_status kbv_cuda_alloc_put(kbv_cuda_alloc *a, void *ptr);
/* Frees every cached block (cudaFree); live blocks stay. */
kbv_status kbv_cuda_alloc_trim(kbv_cuda_alloc *a);
/* Frees everything, live blocks included. */
void kbv_cuda_alloc_destroy(kbv_cuda_alloc *a);

/* ---- the backend ---- */

typedef struct kbv_cuda {
    int device;
    int sms;                          /* multiprocessors */
    size_t l2_bytes;
    cudaStream_t stream;              /* every piece of work goes here */
    cudaEvent_t ev_start, ev_stop;
    kbv_cuda_alloc alloc;
    cublasHandle_t blas;              /* created at the first matmul */
    void *blas_workspace;             /* from alloc: counted, as PyTorch's is; cuBLASLt
                                         shares it, as PyTorch's unified workspace does */
    cublasLtHandle_t blaslt;          /* created at the first linear with a bias */
    void *flush_buf;                  /* cudaMalloc'd at the first flush, not counted */
    size_t flush_bytes;
    unsigned flush_count;
    void *service;                    /* compare partials and results; not counted */
    kbv_cuda_compare_acc *cmp_partials, *cmp_result;
    unsigned long long *hash_result;
    void *clock_handle;               /* NVML's, for the SM clock; NULL: none */
} kbv_cuda;

/* The SM clock through NVML (cuda_clock.c); a device NVML does not know reads 0. */
kbv_status kbv_cuda_clock_open(int device, void **handle);
kbv_status kbv_cuda_sm_clock(void *handle, unsigned *mhz, unsigned *max_mhz);

static inline kbv_cuda *kbv_cuda_of(kbv_backend *be) { return (kbv_cuda *)be->impl; }

/* The op table (cuda_ops.c), KBV_OP_COUNT entries. */
const kbv_op_fn *kbv_cuda_op_table(void);
/* be->widens_f32 on the float64 backend: the elementwise ops of op_unary. */
bool kbv_cuda_widens_f32(const kbv_backend *be, kbv_op op);
/* The cuBLAS ops (cuda_matmul.c). */
kbv_status kbv_cuda_op_matmul(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);
kbv_status kbv_cuda_op_bmm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);
kbv_status kbv_cuda_op_einsum(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);
/* F.linear (cuda_linear.c): cuBLASLt with the bias epilogue, as torch.addmm. */
kbv_status kbv_cuda_op_linear(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);

/* Device services (cuda_services.c): fill the backend's function pointers. */
void kbv_cuda_install_services(kbv_backend *be);

/* cuBLAS handle, stream, math mode and the 32 MiB workspace, made once. */
kbv_status kbv_cuda_blas_ready(kbv_backend *be);

/* ---- tensors (cuda_tensor.c) ---- */

/* *is_f64 for a float32 or float64 tensor in this backend's float dtype;
 * KBV_ERR_UNSUPPORTED otherwise, bfloat16 included: an op that calls this
 * has no bf16 kernel. */
kbv_status kbv_cuda_float_of(const kbv_backend *be, const kbv_tensor *t, int *is_f64);
/* The same for an op with bf16 kernels: *kind is KBV_CUDA_KIND_F32, _F64 or
 * _BF16 (cuda_launch.h), for launchers that take `kind`. */
kbv_status kbv_cuda_float_kind(const kbv_backend *be, const kbv_tensor *t, int *kind);
/* t's layout aligned to an output shape with numpy broadcasting. */
kbv_status kbv_cuda_broadcast_layout(const kbv_tensor *t, int out_ndim, const int64_t *out_shape,
                                     kbv_cuda_layout *l);
/* A contiguous copy of t in scratch from be->alloc (released by the caller
 * with be->release); when t is already contiguous, *copy = *t and
 * *scratch = NULL. */
kbv_status kbv_cuda_contiguous(kbv_backend *be, const kbv_tensor *t, kbv_tensor *copy,
                               void **scratch);
/* Fails unless out is contiguous with numel n and the given dtype. */
kbv_status kbv_cuda_check_out(const kbv_tensor *out, int64_t n, kbv_dtype dtype, const char *op);

#endif
