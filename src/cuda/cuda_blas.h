/* One (batched) matrix product as cuBLAS runs it. matmul, bmm and einsum
 * (cuda_matmul.c) each reduce to a kbv_gemm; cuda_blas.c issues it. */
#ifndef KBV_CUDA_BLAS_H
#define KBV_CUDA_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cuda_impl.h"

/* PyTorch gives cuBLAS 32 MiB of workspace on Hopper (4096 KiB x 8), from
 * its caching allocator, so it shows in max_memory_allocated; cuBLASLt
 * shares the same buffer (PyTorch's unified cuBLAS/cuBLASLt workspace). */
#define KBV_CUBLAS_WORKSPACE_BYTES ((size_t)32 << 20)

/* ...but offers cuBLASLt only 1 MiB of it, both to the heuristic and to the
 * product (PyTorch 2.11 on an H200, CUBLASLT_LOG_LEVEL=5: maxWorkspaceSizeinBytes
 * and workSpaceSizeInBytes 1048576 in every addmm). The size decides which
 * split-K algorithms the heuristic may return: with 32 MiB it picks, for
 * L3/34's [8,256]x[256,128] product, a 264-way split-K algorithm (id 55)
 * where PyTorch's 1 MiB gets algorithm 11, and L3/34 took five times
 * PyTorch's GPU time. */
#define KBV_CUBLASLT_WORKSPACE_BYTES ((size_t)1 << 20)

/* A matrix operand of every batch entry: element (r, c) of entry (b...) at
 * data + r * rs + c * cs + sum(b_i * batch_stride[i]). */
typedef struct kbv_gemm_matrix {
    const void *data;
    int64_t rows, cols;
    int64_t rs, cs;
    int64_t batch_stride[KBV_MAX_DIMS];  /* 0 where the operand is broadcast */
} kbv_gemm_matrix;

/* c[b...] = a[b...] (M x K) @ b[b...] (K x N), c contiguous [batch..., M, N]. */
typedef struct kbv_gemm {
    int nb;
    int64_t batch[KBV_MAX_DIMS];
    kbv_gemm_matrix a, b;
    void *c;
    int kind;                  /* KBV_CUDA_KIND_F32, _F64 or _BF16 (cuda_launch.h) */
} kbv_gemm;

/* Whether cuBLAS can read the matrix in place: row-major (cs == 1) or a
 * transposed view (rs == 1), with a leading dimension it accepts. */
bool kbv_cuda_gemm_viewable(int64_t rows, int64_t cols, int64_t rs, int64_t cs);

kbv_status kbv_cuda_gemm(kbv_backend *be, const kbv_gemm *g);

/* torch.matmul(a, b) into the contiguous out, operands made readable by
 * cuBLAS first (cuda_matmul.c); what names the op in messages. */
kbv_status kbv_cuda_matmul_into(kbv_backend *be, const kbv_tensor *a, const kbv_tensor *b,
                                kbv_tensor *out, const char *what);

/* c [M, N] = x [M, K] @ w[N, K]^T + bias [N], all row-major with leading
 * dims ldx, ldw and N, as PyTorch's addmm calls cuBLASLt
 * (at::cuda::blas::gemm_and_bias): the bias epilogue, beta 0, the compute
 * type by mode (32F, 32F_FAST_TF32 in tf32, 64F), the operands' alignments
 * as preferences, the cuBLAS workspace, the first heuristic result
 * (cuda_blas_lt.c). KBV_ERR_UNSUPPORTED when cuBLASLt has no algorithm,
 * as PyTorch then falls back to cuBLAS. */
typedef struct kbv_gemm_bias {
    int is_f64;
    int64_t m, n, k;
    const void *x, *w, *bias;
    int64_t ldx, ldw;
    void *c;
} kbv_gemm_bias;

kbv_status kbv_cuda_gemm_bias(kbv_backend *be, const kbv_gemm_bias *g);

#endif
