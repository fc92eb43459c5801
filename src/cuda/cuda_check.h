/* Turning CUDA runtime and cuBLAS return codes into kbv_status.
 *
 * Every call is checked; the failure message carries the call's own text,
 * so a trace reads "cudaMalloc(&p, bytes): out of memory". Kernel launchers
 * (cuda_launch.h) return cudaError_t (cudaGetLastError after the launch), so
 * they are checked with the same macros. */
#ifndef KBV_CUDA_CHECK_H
#define KBV_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "core/status.h"

#define KBV_CUDA_FAIL(err, text)                                                          \
    kbv_fail((err) == cudaErrorMemoryAllocation ? KBV_ERR_NOMEM : KBV_ERR_CUDA, "%s: %s (%s)", \
             (text), cudaGetErrorString(err), cudaGetErrorName(err))

/* Returns from the current function on a CUDA error. */
#define KBV_CUDA_TRY(call)                                                                \
    do {                                                                                  \
        cudaError_t kbv_cuda_err_ = (call);                                               \
        if (kbv_cuda_err_ != cudaSuccess)                                                 \
            return KBV_CUDA_FAIL(kbv_cuda_err_, #call);                                   \
    } while (0)

/* Jumps to the function's cleanup path on a CUDA error, setting st. */
#define KBV_CUDA_TRY_GOTO(call, st, label)                                                \
    do {                                                                                  \
        cudaError_t kbv_cuda_err_ = (call);                                               \
        if (kbv_cuda_err_ != cudaSuccess) {                                               \
            (st) = KBV_CUDA_FAIL(kbv_cuda_err_, #call);                                   \
            goto label;                                                                   \
        }                                                                                 \
    } while (0)

/* The driver API (virtual memory for the shared arena): same shape. */
#define KBV_CU_TRY_GOTO(call, st, label)                                                  \
    do {                                                                                  \
        CUresult kbv_cu_res_ = (call);                                                    \
        if (kbv_cu_res_ != CUDA_SUCCESS) {                                                \
            const char *kbv_cu_text_ = NULL;                                              \
            cuGetErrorString(kbv_cu_res_, &kbv_cu_text_);                                 \
            (st) = kbv_fail(kbv_cu_res_ == CUDA_ERROR_OUT_OF_MEMORY ? KBV_ERR_NOMEM       \
                                                                    : KBV_ERR_CUDA,       \
                            "%s: %s", #call, kbv_cu_text_ ? kbv_cu_text_ : "unknown");    \
            goto label;                                                                   \
        }                                                                                 \
    } while (0)

#define KBV_CUBLAS_FAIL(cst, text)                                                        \
    kbv_fail((cst) == CUBLAS_STATUS_ALLOC_FAILED ? KBV_ERR_NOMEM : KBV_ERR_CUDA,          \
             "%s: %s", (text), cublasGetStatusString(cst))

#define KBV_CUBLAS_TRY(call)                                                              \
    do {                                                                                  \
        cublasStatus_t kbv_cublas_st_ = (call);                                           \
        if (kbv_cublas_st_ != CUBLAS_STATUS_SUCCESS)                                      \
            return KBV_CUBLAS_FAIL(kbv_cublas_st_, #call);                                \
    } while (0)

#define KBV_CUBLAS_TRY_GOTO(call, st, label)                                              \
    do {                                                                                  \
        cublasStatus_t kbv_cublas_st_ = (call);                                           \
        if (kbv_cublas_st_ != CUBLAS_STATUS_SUCCESS) {                                    \
            (st) = KBV_CUBLAS_FAIL(kbv_cublas_st_, #call);                                \
            goto label;                                                                   \
        }                                                                                 \
    } while (0)

#endif
