/* CPU ops by family: normalisation (cpu_norm.c), reductions
 * (cpu_reduce.c), elementwise pieces (cpu_pointwise.c), scans and their
 * layout ops (cpu_scan.c), losses (cpu_loss.c), attention (cpu_attention.c);
 * each file documents its semantics. The matrix products, the activations
 * and arithmetic, softmax and the layout ops are declared in cpu_backend.h,
 * convolution and pooling in cpu_conv_pool.h. */
#ifndef KBV_CPU_OPS_H
#define KBV_CPU_OPS_H

#include "exec/backend.h"

/* batch_norm, instance_norm, group_norm, layer_norm */
kbv_status kbv_cpu_norm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
/* sum, mean, max, min, argmax, argmin, norm_dim */
kbv_status kbv_cpu_reduce(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out);
/* sum_dims, mean_dims, amax_dims, logsumexp */
kbv_status kbv_cpu_reduce_dims(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);
/* mean_all, norm_fro */
/* F.normalize along dim i[0]: a / max(||a||_2, eps) per line; the norm
 * accumulates in double, as the CPU's reductions do. */
/* Mamba-2's segsum mask: out[i][j] = j > i, bool [T, T]. */
kbv_status kbv_cpu_segsum_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);
kbv_status kbv_cpu_normalize(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
kbv_status kbv_cpu_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);
/* pow, sqrt, log, rsub_scalar, clamp_min */
kbv_status kbv_cpu_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
kbv_status kbv_cpu_masked_fill(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);
kbv_status kbv_cpu_eq_scalar(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
kbv_status kbv_cpu_mul_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
/* cumsum, cumprod */
kbv_status kbv_cpu_scan(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
kbv_status kbv_cpu_flip(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
kbv_status kbv_cpu_zeros_slice(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);
kbv_status kbv_cpu_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out);
/* torch.stack: cat of the operands viewed with a size-1 dim */
kbv_status kbv_cpu_stack(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);
/* lstm, gru (cpu_rnn.c) */
kbv_status kbv_cpu_rnn(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out);
kbv_status kbv_cpu_drop_last(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
/* cross_entropy, smooth_l1_loss, kl_div, triplet_margin_loss */
kbv_status kbv_cpu_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
/* pad, roll; index (cpu_shifted.c) */
kbv_status kbv_cpu_shifted(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);
kbv_status kbv_cpu_index(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);
kbv_status kbv_cpu_sdpa(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);

#endif
