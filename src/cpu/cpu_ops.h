/* The CPU ops of the normalisation, reduction, scan, loss and attention
 * family (cpu_norm.c, cpu_reduce.c, cpu_pointwise.c, cpu_scan.c,
 * cpu_loss.c, cpu_attention.c); each documents its semantics. */
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
kbv_status kbv_cpu_reduce_all(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out);
/* pow, sqrt, log, rsub_scalar, clamp_min */
kbv_status kbv_cpu_pointwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
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
kbv_status kbv_cpu_drop_last(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
/* cross_entropy, smooth_l1_loss, kl_div, triplet_margin_loss */
kbv_status kbv_cpu_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
kbv_status kbv_cpu_sdpa(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);

#endif
