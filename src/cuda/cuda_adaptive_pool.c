/* adaptive_avg_pool{1,2,3}d on the GPU, as PyTorch runs them: an output of
 * one element per plane is the mean over the spatial dims (PyTorch's
 * adaptive_avg_pool2d/3d call mean(-1, -2[, -3]) for it, and 1-D pooling is
 * 2-D pooling of one row), through the row reduction; any other size runs
 * the adaptive kernel (cuda_adaptive_pool.cu) on the contiguous input. */
#include "cuda/cuda_conv.h"
#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "graph/ops_rules.h"

kbv_status kbv_cuda_op_adaptive_pool(kbv_backend *be, const kbv_node *node,
                                     const kbv_tensor *args, kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0];
    kbv_adaptive ad;
    KBV_TRY(kbv_adaptive_parse(node->op, node->def ? node->def->s : NULL, &ad));
    if (a->ndim != out->ndim || a->ndim < ad.spatial + 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: a %d-dim input for a %d-dim output",
                        kbv_cuda_op_name(node->op), a->ndim, out->ndim);
    const int first = a->ndim - ad.spatial;
    int64_t planes = 1, in_n = 1, out_n = 1;
    kbv_cuda_window w = {.in = {1, 1, 1}, .out = {1, 1, 1}};
    for (int d = 0; d < first; d++)
        planes *= a->shape[d];
    for (int k = 0; k < ad.spatial; k++) {
        w.in[3 - ad.spatial + k] = a->shape[first + k];
        w.out[3 - ad.spatial + k] = out->shape[first + k];
        in_n *= a->shape[first + k];
        out_n *= out->shape[first + k];
    }
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get(be, node, a, out, planes * out_n, a->dtype, &in));
    cudaError_t err =
        out_n == 1 ? kbv_cuda_launch_reduce_dim(cu->stream, KBV_OP_MEAN, in.is_f64, in.x.data,
                                                out->data, planes, in_n, 1)
                   : kbv_cuda_launch_adaptive_avg_pool(cu->stream, in.is_f64, &w, planes,
                                                       in.x.data, out->data);
    kbv_status st = kbv_cuda_launched(err, node);
    kbv_cuda_operand_release(be, &in);
    return st;
}
