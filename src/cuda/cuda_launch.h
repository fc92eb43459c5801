/* The CUDA kernels of the backend, seen from C.
 *
 * Kernels live in .cu files (nvcc); each is reached through one launcher
 * here that enqueues it on a stream and returns cudaGetLastError(), so the C
 * side checks launches like any other CUDA call (KBV_CUDA_TRY). Float data
 * is float (is_f64 = 0) or double (is_f64 = 1); a launcher whose argument
 * is `kind` also takes bfloat16 (kind = 2, KBV_CUDA_KIND_BF16: stored as
 * bf16, computed in float as PyTorch's opmath, rounded once per stored
 * result). Element counts and offsets are 64-bit throughout (tensors reach
 * 1.6e9 elements). `sms`, where taken,
 * is the device's multiprocessor count, for grids of resident blocks. */
#ifndef KBV_CUDA_LAUNCH_H
#define KBV_CUDA_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "kbv/candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An operand's strides aligned to an output shape: element strides, 0 where
 * the operand is broadcast along that dim. ndim 0 is a single element. */
typedef struct kbv_cuda_layout {
    int ndim;
    int64_t shape[KBV_MAX_DIMS];
    int64_t stride[KBV_MAX_DIMS];
} kbv_cuda_layout;

/* The float kinds of a `kind` argument (cuda_device.h's FloatKind). */
#define KBV_CUDA_KIND_F32 0
#define KBV_CUDA_KIND_F64 1
#define KBV_CUDA_KIND_BF16 2

/* ---- elementwise (cuda_elementwise.cu); op is a kbv_op; grids cover the work ---- */

/* y[i] = op(x[i]) over n contiguous elements; p0, p1 are the op's float
 * attributes (leaky slope, elu alpha, hardtanh bounds, the scalar). */
cudaError_t kbv_cuda_launch_unary(cudaStream_t s, int op, int kind, double p0,
                                  double p1, const void *x, void *y, int64_t n);
/* y[i] (double) = op(x[i]) for float x read as its double value, computed as
 * the double kind computes it: a float32 operand on the float64 backend. */
cudaError_t kbv_cuda_launch_unary_widen(cudaStream_t s, int op, double p0, double p1,
                                        const void *x, void *y, int64_t n);
/* y (contiguous, shape xl->shape) = op(x viewed through xl). */
cudaError_t kbv_cuda_launch_unary_strided(cudaStream_t s, int op, int kind, double p0,
                                          double p1, const void *x, const kbv_cuda_layout *xl,
                                          void *y);
/* y[i] = a[i] op b[i] over n contiguous elements; an operand flagged scalar
 * is one element (in device memory) used for every i. */
cudaError_t kbv_cuda_launch_binary(cudaStream_t s, int op, int kind, const void *a,
                                   int a_scalar, const void *b, int b_scalar, void *y, int64_t n);
/* y (contiguous, shape al->shape) = a op b, both viewed through layouts
 * aligned to the output shape (al->shape == bl->shape). */
cudaError_t kbv_cuda_launch_binary_strided(cudaStream_t s, int op, int kind,
                                           const void *a, const kbv_cuda_layout *al,
                                           const void *b, const kbv_cuda_layout *bl, void *y);
/* y[i] = t[i] op s (scalar_first: s op t[i]) over n contiguous bf16 elements,
 * s a float32 0-d tensor in device memory taken as the opmath float. */
cudaError_t kbv_cuda_launch_binary_f32_scalar(cudaStream_t s, int op, const void *t,
                                              const float *scalar, int scalar_first, void *y,
                                              int64_t n);
/* y (contiguous) = x viewed through xl; elem_size 1, 2, 4 or 8 bytes. */
cudaError_t kbv_cuda_launch_copy_strided(cudaStream_t s, size_t elem_size, const void *x,
                                         const kbv_cuda_layout *xl, void *y);

/* ---- attention's masks (cuda_mask.cu) ---- */

/* y (contiguous, shape xl->shape) = value where the bool mask is true, x
 * elsewhere, both viewed through layouts aligned to the output shape.
 * period > 0: x is contiguous and the mask, contiguous too, repeats every
 * period elements of the output (its trailing dims, broadcast over the
 * leading ones): element i reads the mask at i % period. */
cudaError_t kbv_cuda_launch_masked_fill(cudaStream_t s, int kind, const void *x,
                                        const kbv_cuda_layout *xl, const unsigned char *mask,
                                        const kbv_cuda_layout *ml, int64_t period, double value,
                                        void *y);
/* y (contiguous bool bytes, shape xl->shape) = (x viewed through xl) == value,
 * compared in the compute type (float for bf16). */
cudaError_t kbv_cuda_launch_eq_scalar(cudaStream_t s, int kind, const void *x,
                                      const kbv_cuda_layout *xl, double value, unsigned char *y);

/* ---- Mamba-2's segsum mask (cuda_segsum_mask.cu) ---- */

/* m (contiguous bool [t, t]) = j > i: ~tril(ones(t, t)). */
cudaError_t kbv_cuda_launch_segsum_mask(cudaStream_t s, unsigned char *m, int64_t t);

/* ---- noise beside a call (cuda_noise.cu): the strict race run ---- */

/* Blocks on stream s that read and write buf (bytes) for about us microseconds. */
cudaError_t kbv_cuda_launch_noise(cudaStream_t s, void *buf, size_t bytes, int us);

/* ---- softmax (cuda_softmax.cu) ---- */

/* Softmax (or log-softmax) of each of `rows` contiguous rows of `cols`. */
cudaError_t kbv_cuda_launch_softmax_lastdim(cudaStream_t s, int sms, int is_log, int kind,
                                            const void *x, void *y, int64_t rows, int64_t cols);
/* Along the middle dim of a contiguous [outer, dim, inner] tensor. */
cudaError_t kbv_cuda_launch_softmax_strided(cudaStream_t s, int sms, int is_log, int kind,
                                            const void *x, void *y, int64_t outer, int64_t dim,
                                            int64_t inner);

/* ---- layout ops (cuda_layout.cu) ---- */

/* y: m x m contiguous, zero but for y[i][i + k] (k >= 0) or y[i - k][i]
 * (k < 0) = x[i * x_stride], i < n; m = n + |k|. */
cudaError_t kbv_cuda_launch_diag_embed(cudaStream_t s, int kind, const void *x,
                                       int64_t n, int64_t x_stride, int64_t k, void *y);
/* y[i] = x[(i + r0) * rs + (i + c0) * cs] for i < len (the k-th diagonal). */
cudaError_t kbv_cuda_launch_diag_extract(cudaStream_t s, int kind, const void *x,
                                         int64_t rs, int64_t cs, int64_t r0, int64_t c0,
                                         int64_t len, void *y);
/* triu (upper = 1) or tril of `batch` contiguous rows x cols matrices:
 * keeps x[i][j] where j - i >= k (triu) or j - i <= k (tril), else 0. */
cudaError_t kbv_cuda_launch_tri(cudaStream_t s, int kind, int upper, int64_t k,
                                const void *x, void *y, int64_t batch, int64_t rows, int64_t cols);

/* pad and roll (graph/ops_shifted.h): y (contiguous, shape out_shape) at
 * coordinate o reads x (shape in.shape, strides in.stride) at o - offset per
 * dim, wrapped modulo in.shape (wrap = 1, roll) or the elem_size bytes of
 * fill where it falls outside x (pad); elem_size 1, 2, 4 or 8 bytes. */
cudaError_t kbv_cuda_launch_shifted_copy(cudaStream_t s, size_t elem_size, const void *x,
                                         const kbv_cuda_layout *in, const int64_t *out_shape,
                                         const int64_t *offset, int wrap, uint64_t fill,
                                         void *y);

/* index, a[b]: y[m] = x[idx[m]] for m < n, rows of row_len elements of
 * elem_size bytes (x has `rows` of them; a negative index counts from the
 * end; one out of range leaves its row of y zero, where PyTorch's kernel
 * would stop on a device assert). */
cudaError_t kbv_cuda_launch_index_rows(cudaStream_t s, size_t elem_size, const void *x,
                                       int64_t rows, int64_t row_len, const int64_t *idx,
                                       int64_t n, void *y);

/* ---- input generation (cuda_fill.cu) ---- */

typedef struct kbv_cuda_fill_spec {
    kbv_dtype dtype;        /* storage of the tensor */
    kbv_dtype logical;      /* the input's dtype in the problem: float values round to it */
    int gen;                /* kbv_gen */
    int structure;          /* kbv_structure */
    int dist;               /* kbv_dist */
    uint64_t seed;
    uint32_t key;           /* kbv_input_key(index) */
    int64_t n;              /* elements */
    int64_t rows, cols;     /* last two dims (matrix structures, softmax rows); 1 x n for 1-d */
    int64_t row_len;        /* D8 rows: last dim for ndim >= 2, else 0 */
    int64_t low, high;      /* randint */
    double value;           /* scalar */
    double factor;          /* D1-D4's, after structure (kbv_draw_factor) */
    int pattern;            /* kbv_pattern: an extra config's values instead of a draw */
} kbv_cuda_fill_spec;

cudaError_t kbv_cuda_launch_fill_input(cudaStream_t s, int sms, const kbv_cuda_fill_spec *spec,
                                       void *out);
/* kind (kbv_param_kind), fan_in and value as kbv_param_value takes them;
 * values rounded to float when the parameter is float32 in the problem. */
cudaError_t kbv_cuda_launch_fill_param(cudaStream_t s, int sms, kbv_dtype dtype, kbv_dtype logical,
                                       int kind, int64_t fan_in, double value, int d5,
                                       uint64_t seed, uint32_t key, int64_t n, void *out);

/* ---- comparison, hashing, poison, conversion (cuda_compare.cu) ---- */

/* Accumulators of one comparison; every field 8 bytes (reduced as words).
 * first indices are INT64_MAX when none. The budget_ fields are the budget
 * baseline's strict error sums (kbv_cuda_compare_args.budget), 0 without one. */
typedef struct kbv_cuda_compare_acc {
    long long poison_left, cand_nonfinite, cand_nan, ref_nonfinite, allclose_fail;
    long long unjudged, oracle_nonfinite, class_fail, allclose_first, strict_first;
    double max_abs_diff, sq_err, sq_ref, max_err, max_ref;
    double budget_sq_err, budget_sq_ref, budget_max_err, budget_max_ref;
} kbv_cuda_compare_acc;

/* Blocks of the comparison grid; `partials` must hold this many accumulators. */
int kbv_cuda_compare_grid(int sms);

/* One comparison's operands (device memory, n elements each, contiguous):
 * floats (float32/64/16, bfloat16) or integers (compared as the exact values they
 * hold). ref, oracle and strict may be NULL. budget, with an oracle, is a second
 * output judged in the same pass by the strict rule against the same oracle
 * and strict baseline: its error sums are what a comparison of it alone would
 * give (the same grid, the same order), and the references are read once. */
typedef struct kbv_cuda_compare_args {
    const void *cand, *ref, *oracle, *strict, *budget;
    kbv_dtype cand_dtype, ref_dtype, oracle_dtype, strict_dtype, budget_dtype;
    int64_t n;
    double atol, rtol;
} kbv_cuda_compare_args;

/* The result lands in *result (device memory). */
cudaError_t kbv_cuda_launch_compare(cudaStream_t s, int sms, const kbv_cuda_compare_args *args,
                                    kbv_cuda_compare_acc *partials, kbv_cuda_compare_acc *result);
/* *result (device) = sum over 8-byte little-endian words w_i (the last one
 * zero-padded) of splitmix64(w_i ^ i), mod 2^64. */
cudaError_t kbv_cuda_launch_hash(cudaStream_t s, int sms, const void *data, size_t bytes,
                                 unsigned long long *result);
/* Every 32-bit word of data = word (kbv_poison_word of the tensor's dtype; a
 * trailing partial word gets the pattern's low bytes). */
cudaError_t kbv_cuda_launch_poison(cudaStream_t s, int sms, void *data, size_t bytes,
                                   uint32_t word);
/* dst[i] = src[i] between float32, float64, float16 and bfloat16 (round to
 * nearest even, once from the source value). */
cudaError_t kbv_cuda_launch_convert(cudaStream_t s, int sms, const void *src, kbv_dtype src_dtype,
                                    void *dst, kbv_dtype dst_dtype, int64_t n);

#ifdef __cplusplus
}
#endif

#endif
