/* The CUDA kernels of the normalisation, reduction, scan, loss and
 * attention ops, seen from C (cuda_norm.cu, cuda_reduce.cu,
 * cuda_pointwise.cu, cuda_scan.cu, cuda_loss.cu, cuda_attention.cu).
 *
 * Every launcher enqueues its kernels on stream `s` and returns
 * cudaGetLastError(). Tensors are contiguous device memory; float data is
 * float (is_f64 = 0) or double (is_f64 = 1); counts are 64-bit. Launchers
 * that reduce take a device scratch buffer whose size the matching
 * *_scratch_bytes function gives (0: none needed). Results are
 * deterministic: partial results are combined in a fixed order. */
#ifndef KBV_CUDA_NORM_LAUNCH_H
#define KBV_CUDA_NORM_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- normalisation (cuda_norm.cu) ----
 * x and y are [n, channels, spatial]; the statistics group is
 *   batch (per channel over n and spatial), instance (per (n, c)),
 *   group (per (n, g) over channels / groups channels), or
 *   layer (x is [n, spatial]: per row; w and b hold `spatial` elements).
 * Biased variance, y = (x - mean) / sqrt(var + eps) * w + b (w, b NULL for
 * instance norm). */
typedef enum kbv_cuda_norm_kind {
    KBV_CUDA_NORM_BATCH = 0,
    KBV_CUDA_NORM_INSTANCE,
    KBV_CUDA_NORM_GROUP,
    KBV_CUDA_NORM_LAYER,
} kbv_cuda_norm_kind;

size_t kbv_cuda_norm_scratch_bytes(int kind, int64_t n, int64_t channels, int64_t spatial,
                                   int64_t groups);
cudaError_t kbv_cuda_launch_norm(cudaStream_t s, int kind, int ft, const void *x, void *y,
                                 const void *w, const void *b, int64_t n, int64_t channels,
                                 int64_t spatial, int64_t groups, double eps, void *scratch);

/* ---- reductions (cuda_reduce.cu) ----
 * Along the middle dim of a contiguous [outer, len, inner] tensor into
 * [outer, inner]: op is a kbv_op (sum, mean, max, min, argmax, argmin,
 * norm_dim); argmax/argmin write int64. */
cudaError_t kbv_cuda_launch_reduce_dim(cudaStream_t s, int op, int ft, const void *x,
                                       void *y, int64_t outer, int64_t len, int64_t inner);
/* F.normalize's division (cuda_normalize.cu): y = x / max(norm, eps) over
 * a contiguous [outer, len, inner] x, norm [outer, inner] (a NaN norm
 * passes, as clamp_min lets it). */
cudaError_t kbv_cuda_launch_normalize_divide(cudaStream_t s, int ft, const void *x,
                                             const void *norm, void *y, int64_t outer,
                                             int64_t len, int64_t inner, double eps);
/* The kernels of a reduction with inner > 1, for measuring one against the
 * others (bench/probes/pool_reduce_variants.cu); kbv_cuda_launch_reduce_dim
 * picks one. Max, min and the arg reductions agree exactly across them;
 * sums to rounding (the contiguous splits add the column kernel's runs of 16
 * elements, the strided one other runs). */
typedef enum kbv_cuda_reduce_algo {
    KBV_CUDA_REDUCE_COLUMN = 0,      /* a thread per column walking all of len */
    KBV_CUDA_REDUCE_SPLIT4,          /* 32 columns x 4 contiguous parts of len per block */
    KBV_CUDA_REDUCE_SPLIT8,          /* 32 x 8 */
    KBV_CUDA_REDUCE_SPLIT16,         /* 32 x 16 */
    KBV_CUDA_REDUCE_SPLIT16_STRIDED, /* 32 x 16, part p taking rows p, p + 16, ... */
    KBV_CUDA_REDUCE_SPLIT16_STRIDED_U8, /* as SPLIT16_STRIDED, sums 8 loads in flight, not 16 */
    KBV_CUDA_REDUCE_WIDE64_SPLIT8,   /* 64 columns x 8 parts, rows 8 apart */
    KBV_CUDA_REDUCE_ALGO_COUNT
} kbv_cuda_reduce_algo;
cudaError_t kbv_cuda_launch_reduce_dim_algo(cudaStream_t s, int op, int ft, const void *x,
                                            void *y, int64_t outer, int64_t len, int64_t inner,
                                            int algo);
/* torch.logsumexp along the middle dim of [outer, len, inner] into
 * [outer, inner] (cuda_logsumexp.cu). */
cudaError_t kbv_cuda_launch_logsumexp(cudaStream_t s, int is_f64, const void *x, void *y,
                                      int64_t outer, int64_t len, int64_t inner);
/* Mean (squares = 0) or sqrt of the sum of squares (squares = 1) of n
 * elements into the 0-dim y. */
size_t kbv_cuda_reduce_all_scratch_bytes(int64_t n);
cudaError_t kbv_cuda_launch_reduce_all(cudaStream_t s, int squares, int ft, const void *x,
                                       void *y, int64_t n, void *scratch);

/* ---- elementwise pieces (cuda_pointwise.cu) ----
 * y[i] = op(x[i]) for op pow (p = exponent), sqrt, log, rsub_scalar
 * (p - x), clamp_min (max(x, p), NaN kept). */
cudaError_t kbv_cuda_launch_pointwise(cudaStream_t s, int op, int ft, double p,
                                      const void *x, void *y, int64_t n);
/* y[i] = x[i] * mask[i % mask_period] (bool bytes, promoted to 0 or 1): a
 * same-shape mask has period n, a [cols] mask broadcast over rows period
 * cols. */
cudaError_t kbv_cuda_launch_mul_mask(cudaStream_t s, int ft, const void *x,
                                     const unsigned char *mask, void *y, int64_t n,
                                     int64_t mask_period);
/* In-place rounding of n floats or doubles to the nearest float16 value. */
cudaError_t kbv_cuda_launch_round_half(cudaStream_t s, int is_f64, void *y, int64_t n);

/* ---- scans and their layout ops (cuda_scan.cu) ----
 * Inclusive cumsum (is_prod 0) or cumprod along the middle dim of
 * [outer, len, inner]; x's rows start x_row_stride elements apart when
 * inner == 1 (a [:-1] view of a wider tensor), y is contiguous. */
cudaError_t kbv_cuda_launch_scan(cudaStream_t s, int is_prod, int ft, const void *x,
                                 int64_t x_row_stride, void *y, int64_t outer, int64_t len,
                                 int64_t inner);
/* y = x reversed along the middle dim of [outer, len, inner], any element size. */
cudaError_t kbv_cuda_launch_flip(cudaStream_t s, size_t elem_size, const void *x, void *y,
                                 int64_t outer, int64_t len, int64_t inner);
/* y[o, :, i] = a[o, :, i] then b[o, :, i]: cat along the middle dim of
 * [outer, len_a + len_b, inner]. */
cudaError_t kbv_cuda_launch_cat(cudaStream_t s, size_t elem_size, const void *a, int64_t len_a,
                                const void *b, int64_t len_b, void *y, int64_t outer,
                                int64_t inner);

/* ---- losses (cuda_loss.cu) ---- each writes one 0-dim mean into y */
size_t kbv_cuda_loss_scratch_bytes(int64_t rows, int64_t n);
/* logits [rows, classes], int64 targets (ignore_index -100 skipped; an
 * out-of-range target makes the result NaN) */
cudaError_t kbv_cuda_launch_cross_entropy(cudaStream_t s, int ft, const void *x,
                                          const int64_t *targets, void *y, int64_t rows,
                                          int64_t classes, void *scratch);
cudaError_t kbv_cuda_launch_smooth_l1(cudaStream_t s, int ft, const void *a, const void *b,
                                      void *y, int64_t n, double beta, void *scratch);
/* sum(xlogy(t, t) - t * input) / batch */
cudaError_t kbv_cuda_launch_kl_div(cudaStream_t s, int ft, const void *input,
                                   const void *target, void *y, int64_t n, int64_t batch,
                                   void *scratch);
cudaError_t kbv_cuda_launch_triplet(cudaStream_t s, int ft, const void *a, const void *p,
                                    const void *ng, void *y, int64_t rows, int64_t cols,
                                    double margin, double eps, void *scratch);

/* ---- attention (cuda_attention.cu) ----
 * Over `rows` contiguous rows of `cols` scores: softmax(scale * x), in place,
 * or (float scores only, half_out not NULL) into half_out as float16. */
cudaError_t kbv_cuda_launch_scaled_softmax(cudaStream_t s, int is_f64, void *x, int64_t rows,
                                           int64_t cols, double scale, void *half_out);
/* The same over float32 scores, the probabilities written as bfloat16 to
 * bf16_out (for a bf16 second product). */
cudaError_t kbv_cuda_launch_scaled_softmax_bf16(cudaStream_t s, float *x, int64_t rows,
                                                int64_t cols, double scale, void *bf16_out);
/* dst[i] = float(src[i]) for float16 src, n elements. */
cudaError_t kbv_cuda_launch_half_to_float(cudaStream_t s, const void *src, float *dst,
                                          int64_t n);

#ifdef __cplusplus
}
#endif

#endif
