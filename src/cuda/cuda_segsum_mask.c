/* Mamba-2's segsum mask on CUDA (the kernel in cuda_segsum_mask.cu). */
#include "cuda/cuda_impl.h"
#include "cuda/cuda_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"

kbv_status kbv_cuda_op_segsum_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                                   kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const int64_t t = args[0].ndim > 0 ? args[0].shape[args[0].ndim - 1] : 0;
    if (out->dtype != KBV_BOOL || out->ndim != 2 || out->shape[0] != t || out->shape[1] != t ||
        !kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "segsum_mask: the output is not a contiguous bool "
                        "[%lld, %lld]", (long long)t, (long long)t);
    return kbv_cuda_launched(kbv_cuda_launch_segsum_mask(cu->stream, out->data, t), node);
}
