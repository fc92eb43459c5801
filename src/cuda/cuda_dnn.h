/* The process-wide cuDNN handle of a device (cuda_conv.c keeps it, as
 * PyTorch keeps one per device), for the other cuDNN users (cuda_rnn.c). */
#ifndef KBV_CUDA_DNN_H
#define KBV_CUDA_DNN_H

#include <cudnn.h>

#include "cuda/cuda_impl.h"

/* The handle of cu's device, on cu's stream, with the lock that serialises
 * cuDNN's use held; every KBV_OK is followed by kbv_cuda_dnn_release. */
kbv_status kbv_cuda_dnn_acquire(kbv_cuda *cu, cudnnHandle_t *out);
void kbv_cuda_dnn_release(void);

#endif
