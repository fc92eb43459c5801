/* The CUDA ops outside cuda_ops.c, by family, with the semantics of their
 * CPU counterparts (src/cpu/cpu_ops.h): normalisation (cuda_ops_norm.c),
 * reductions (cuda_ops_reduce.c), elementwise pieces (cuda_ops_elementwise.c),
 * scans and their layout ops (cuda_ops_scan.c), losses (cuda_ops_loss.c) and
 * attention (cuda_attention.c). The matrix products, convolution and
 * pooling ops are declared in cuda_impl.h and cuda_conv.h. */
#ifndef KBV_CUDA_OPS_H
#define KBV_CUDA_OPS_H

#include "exec/backend.h"

/* batch_norm, instance_norm, group_norm, layer_norm */
kbv_status kbv_cuda_op_norm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
/* sum, mean, max, min, argmax, argmin, norm_dim */
kbv_status kbv_cuda_op_reduce(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);
/* sum_dims, mean_dims, amax_dims; logsumexp */
/* F.normalize: the 2-norm along the dim into counted scratch (the
 * reduction kernels), then the division by its clamp to eps. */
/* Mamba-2's segsum mask (cuda_segsum_mask.c). */
kbv_status kbv_cuda_op_segsum_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out);
kbv_status kbv_cuda_op_normalize(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);
kbv_status kbv_cuda_op_reduce_dims(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out);
kbv_status kbv_cuda_op_logsumexp(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);
/* mean_all, norm_fro */
kbv_status kbv_cuda_op_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                  kbv_tensor *out);
/* pow, sqrt, log, rsub_scalar, clamp_min */
kbv_status kbv_cuda_op_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);
kbv_status kbv_cuda_op_masked_fill(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out);
kbv_status kbv_cuda_op_eq_scalar(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);
kbv_status kbv_cuda_op_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                kbv_tensor *out);
/* cumsum, cumprod */
kbv_status kbv_cuda_op_scan(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
kbv_status kbv_cuda_op_flip(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
kbv_status kbv_cuda_op_zeros_slice(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out);
kbv_status kbv_cuda_op_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);
/* pad, roll; index (cuda_ops_shifted.c) */
kbv_status kbv_cuda_op_shifted(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);
kbv_status kbv_cuda_op_index(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
/* torch.stack: cat of the operands viewed with a size-1 dim */
kbv_status kbv_cuda_op_stack(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
/* lstm and gru through cuDNN (cuda_rnn.c) */
kbv_status kbv_cuda_op_rnn(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);
kbv_status kbv_cuda_op_drop_last(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);
/* cross_entropy, smooth_l1_loss, kl_div, triplet_margin_loss */
kbv_status kbv_cuda_op_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
/* scaled_dot_product_attention (cuda_attention.c) */
kbv_status kbv_cuda_op_sdpa(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);

#endif
