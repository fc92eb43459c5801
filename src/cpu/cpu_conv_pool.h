/* The CPU backend's convolution and pooling ops (cpu_conv.c, cpu_pool.c).
 * Their attributes come from the node's keyword-argument string through
 * kbv_window_parse (graph/ops_conv.h); operands may be strided views; the
 * output is contiguous. */
#ifndef KBV_CPU_CONV_POOL_H
#define KBV_CPU_CONV_POOL_H

#include "exec/backend.h"

/* conv{1,2,3}d and conv_transpose{1,2,3}d, with or without bias. */
kbv_status kbv_cpu_conv(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
/* max_pool{1,2,3}d and avg_pool{1,2,3}d. */
kbv_status kbv_cpu_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
/* adaptive_avg_pool{1,2,3}d (cpu_adaptive_pool.c). */
kbv_status kbv_cpu_adaptive_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                 kbv_tensor *out);

#endif
