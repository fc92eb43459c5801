/* One (batched) matrix product as cuBLAS runs it. matmul, bmm and einsum
 * (cuda_matmul.c) each reduce to a kbv_gemm; cuda_blas.c issues it. */
#ifndef KBV_CUDA_BLAS_H
#define KBV_CUDA_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cuda_impl.h"

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

#endif
