/* The CUDA normalisations (batch, instance, group, layer norm): the
 * operand made contiguous (as PyTorch's kernels read it), the statistics'
 * scratch from the backend's allocator, the kernels of cuda_norm.cu. */
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"

kbv_status kbv_cuda_op_norm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const char *name = kbv_cuda_op_name(node->op);
    const bool affine = node->op != KBV_OP_INSTANCE_NORM;
    if (!node->def || args[0].ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: needs eps and an input of 2 or more dims", name);
    if (affine)
        for (int k = 1; k < 3; k++) {
            int f;
            KBV_TRY(kbv_cuda_float_kind(be, &args[k], &f));
            if (!kbv_tensor_is_contiguous(&args[k]))
                return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: weight/bias must be contiguous", name);
        }
    const int64_t n_all = kbv_tensor_numel(&args[0]);
    kbv_cuda_operand in;
    KBV_TRY(kbv_cuda_operand_get_kind(be, node, &args[0], out, n_all, args[0].dtype, &in));
    kbv_status st = KBV_OK;
    void *scratch = NULL;
    const kbv_tensor *x = &in.x;
    int64_t n = x->shape[0], channels = x->shape[1], spatial = 1, groups = 1;
    for (int d = 2; d < x->ndim; d++)
        spatial *= x->shape[d];
    int kind = KBV_CUDA_NORM_INSTANCE;
    switch (node->op) {
    case KBV_OP_BATCH_NORM: kind = KBV_CUDA_NORM_BATCH; break;
    case KBV_OP_GROUP_NORM:
        kind = KBV_CUDA_NORM_GROUP;
        groups = node->def->i[0];
        if (groups <= 0 || channels % groups != 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "group_norm: %lld channels in %lld groups",
                          (long long)channels, (long long)groups);
        break;
    case KBV_OP_LAYER_NORM: {
        kind = KBV_CUDA_NORM_LAYER;
        int64_t size = kbv_tensor_numel(&args[1]);
        if (size == 0 || n_all % size != 0 || kbv_tensor_numel(&args[2]) != size)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "layer_norm: weight of %lld elements",
                          (long long)size);
        n = n_all / size;
        channels = 1;
        spatial = size;
        break;
    }
    default: break;
    }
    if (affine && kind != KBV_CUDA_NORM_LAYER &&
        (kbv_tensor_numel(&args[1]) != channels || kbv_tensor_numel(&args[2]) != channels))
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s: weight and bias need %lld elements", name,
                      (long long)channels);
    KBV_TRY_GOTO(kbv_cuda_scratch(be, kbv_cuda_norm_scratch_bytes(kind, n, channels, spatial,
                                                                   groups),
                                  &scratch),
                 st, done);
    st = kbv_cuda_launched(kbv_cuda_launch_norm(cu->stream, kind, in.kind, x->data, out->data,
                                                affine ? args[1].data : NULL,
                                                affine ? args[2].data : NULL, n, channels,
                                                spatial, groups, node->def->f[0], scratch),
                           node);
done:
    be->release(be, scratch);
    kbv_cuda_operand_release(be, &in);
    return st;
}
