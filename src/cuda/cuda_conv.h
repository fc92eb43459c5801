/* Convolution and pooling on the CUDA backend; the CUDA op table's
 * convolution and pooling rows point here.
 *
 * Convolutions run as PyTorch runs them: through cuDNN (cudnnConvolution-
 * Forward, and BackwardData for the transposed ones), except depthwise ones
 * (groups == input channels > 1, not transposed), which PyTorch runs in its
 * own kernel for float and double, and kbv in cuda_conv_kernels.cu. Pooling
 * runs in cuda_pool.cu. */
#ifndef KBV_CUDA_CONV_H
#define KBV_CUDA_CONV_H

#include "exec/backend.h"

/* conv{1,2,3}d and conv_transpose{1,2,3}d, with or without bias. */
kbv_status kbv_cuda_op_conv(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
/* max_pool{1,2,3}d and avg_pool{1,2,3}d. */
kbv_status kbv_cuda_op_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
/* adaptive_avg_pool{1,2,3}d (cuda_adaptive_pool.c). */
kbv_status kbv_cuda_op_adaptive_pool(kbv_backend *be, const kbv_node *node,
                                     const kbv_tensor *args, kbv_tensor *out);

#endif
