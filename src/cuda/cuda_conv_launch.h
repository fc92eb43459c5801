/* The kernels of the convolution and pooling ops, seen from C (the ops are
 * in cuda_conv.c; cuda_conv.h declares them). Launchers follow
 * cuda_launch.h: they enqueue on a stream and return cudaGetLastError().
 * Float data is float, double or bfloat16 as `kind` says (KBV_CUDA_KIND_*,
 * cuda_launch.h). */
#ifndef KBV_CUDA_CONV_LAUNCH_H
#define KBV_CUDA_CONV_LAUNCH_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A window op in three spatial dims (missing leading ones have size 1,
 * kernel 1, stride 1, no padding) over contiguous [planes, *in] input and
 * [planes', *out] output. */
typedef struct kbv_cuda_window {
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
} kbv_cuda_window;

/* ---- pooling (cuda_pool.cu) ---- */

/* y[p, o] = max (is_max) or average over the window of x[p, ...], for
 * `planes` planes; PyTorch's semantics (cpu_pool_t.h states them). */
cudaError_t kbv_cuda_launch_pool(cudaStream_t s, int is_max, int kind, int count_include_pad,
                                 const kbv_cuda_window *w, int64_t planes, const void *x,
                                 void *y);

/* The pooling kernels, for measuring one against the other
 * (bench/probes/pool_reduce_variants.cu); kbv_cuda_launch_pool picks one. */
typedef enum kbv_cuda_pool_algo {
    KBV_CUDA_POOL_ROWS = 0, /* a group of threads per output row, columns staged in shared memory */
    KBV_CUDA_POOL_DIRECT,   /* a thread per output element */
    KBV_CUDA_POOL_ALGO_COUNT
} kbv_cuda_pool_algo;

/* kbv_cuda_launch_pool with the kernel given (a kbv_cuda_pool_algo); the
 * same results bit for bit. cudaErrorInvalidValue where that kernel cannot
 * take the geometry (the rows kernel: a staged tile beyond 48 KiB). */
cudaError_t kbv_cuda_launch_pool_algo(cudaStream_t s, int is_max, int kind,
                                      int count_include_pad, const kbv_cuda_window *w,
                                      int64_t planes, const void *x, void *y, int algo);

/* Adaptive average pooling (cuda_adaptive_pool.cu): w->in and w->out are
 * the spatial sizes (k, stride, pad, dil unused); PyTorch's windows. */
cudaError_t kbv_cuda_launch_adaptive_avg_pool(cudaStream_t s, int is_f64,
                                              const kbv_cuda_window *w, int64_t planes,
                                              const void *x, void *y);

/* ---- convolution helpers (cuda_conv_kernels.cu) ---- */

/* Depthwise convolution: groups == input channels; output channel oc reads
 * input channel oc / multiplier with its own weight [k0, k1, k2] at
 * weight + oc * prod(k), and starts from bias[oc] (bias may be NULL). x
 * [batch, channels, *in], y [batch, channels * multiplier, *out],
 * contiguous. */
cudaError_t kbv_cuda_launch_depthwise(cudaStream_t s, int kind, const kbv_cuda_window *w,
                                      int64_t batch, int64_t channels, int64_t multiplier,
                                      const void *x, const void *weight, const void *bias,
                                      void *y);
/* y[n, c, i] += b[c] over contiguous y [batch, channels, inner]. */
cudaError_t kbv_cuda_launch_bias_add(cudaStream_t s, int kind, int64_t batch,
                                     int64_t channels, int64_t inner, const void *b, void *y);

#ifdef __cplusplus
}
#endif

#endif
