/* The CUDA losses (cross entropy, smooth L1, KL divergence, triplet margin),
 * each reduced to a 0-dim mean by the kernels of cuda_loss.cu, their
 * partial sums in scratch from the backend's allocator. */
#include "cuda/cuda_norm_launch.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"

kbv_status kbv_cuda_op_loss(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const char *name = kbv_cuda_op_name(node->op);
    kbv_status st = KBV_OK;
    void *scratch = NULL;
    int kind = KBV_CUDA_KIND_F32, k0 = -1;
    const int n_float = node->op == KBV_OP_TRIPLET_MARGIN ? 3
                        : node->op == KBV_OP_CROSS_ENTROPY ? 1
                                                            : 2;
    for (int k = 0; k < n_float; k++) {
        KBV_TRY(kbv_cuda_float_kind(be, &args[k], &kind));
        if (k0 >= 0 && kind != k0)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operands of two float types", name);
        k0 = kind;
        if (!kbv_tensor_is_contiguous(&args[k]))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous", name, k);
    }
    if (!node->def)
        return kbv_fail(KBV_ERR_INVALID, "%s: no attributes", name);
    KBV_TRY(kbv_cuda_check_out(out, 1, args[0].dtype, name));
    const kbv_tensor *a = &args[0];
    const int64_t n = kbv_tensor_numel(a);
    const int64_t rows = a->ndim >= 1 ? a->shape[0] : 1;
    const double *f = node->def->f;
    for (int k = 1; k < n_float; k++)
        if (kbv_tensor_numel(&args[k]) != n)
            return kbv_fail(KBV_ERR_INVALID, "%s: operands of %lld and %lld elements", name,
                            (long long)n, (long long)kbv_tensor_numel(&args[k]));
    KBV_TRY(kbv_cuda_scratch(be, kbv_cuda_loss_scratch_bytes(rows, n), &scratch));
    cudaError_t err = cudaSuccess;
    switch (node->op) {
    case KBV_OP_CROSS_ENTROPY:
        if (a->ndim != 2 || args[1].dtype != KBV_I64 || args[1].ndim != 1 ||
            args[1].shape[0] != rows || !kbv_tensor_is_contiguous(&args[1]))
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID,
                          "cross_entropy: [N, C] logits and [N] int64 targets");
        err = kbv_cuda_launch_cross_entropy(cu->stream, kind, a->data, args[1].data, out->data,
                                            rows, a->shape[1], scratch);
        break;
    case KBV_OP_SMOOTH_L1:
        err = kbv_cuda_launch_smooth_l1(cu->stream, kind, a->data, args[1].data, out->data, n,
                                        f[0], scratch);
        break;
    case KBV_OP_KL_DIV:
        err = kbv_cuda_launch_kl_div(cu->stream, kind, a->data, args[1].data, out->data, n,
                                     rows, scratch);
        break;
    case KBV_OP_TRIPLET_MARGIN:
        if (a->ndim != 2 || f[1] != 2.0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED,
                          "triplet_margin_loss: [N, D] operands and p = 2");
        err = kbv_cuda_launch_triplet(cu->stream, kind, a->data, args[1].data, args[2].data,
                                      out->data, rows, a->shape[1], f[0], f[2], scratch);
        break;
    default:
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is not a loss", name);
    }
    st = kbv_cuda_launched(err, node);
done:
    be->release(be, scratch);
    return st;
}
