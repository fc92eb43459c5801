/* F.linear on the GPU, as PyTorch's linear (ATen/native/Linear.cpp) runs it:
 * with a 1-D bias and a contiguous input, the input is flattened to
 * [M, K] and torch.addmm(bias, x, w.t()) runs one cuBLASLt product with the
 * bias epilogue (cuda_blas_lt.c; where cuBLASLt has no algorithm, or a
 * weight dim is 1 so that addmm does not take that path, the product runs
 * through cuBLAS and the bias is added after it); without a bias, or for a
 * strided input, torch.matmul(x, w.t()) through cuBLAS, then the bias added
 * in place (output.add_(bias)). */
#include "cuda/cuda_blas.h"
#include "cuda/cuda_check.h"
#include "graph/ops.h"

/* out += bias along the last dim, in place (out contiguous [..., N]). */
static kbv_status add_bias(kbv_backend *be, const kbv_tensor *bias, kbv_tensor *out,
                           int is_f64)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_cuda_layout lo, lb;
    KBV_TRY(kbv_cuda_broadcast_layout(out, out->ndim, out->shape, &lo));
    KBV_TRY(kbv_cuda_broadcast_layout(bias, out->ndim, out->shape, &lb));
    KBV_CUDA_TRY(kbv_cuda_launch_binary_strided(cu->stream, KBV_OP_ADD, is_f64, out->data, &lo,
                                                bias->data, &lb, out->data));
    return KBV_OK;
}

kbv_status kbv_cuda_op_linear(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                              kbv_tensor *out)
{
    const kbv_tensor *x = &args[0], *w = &args[1];
    const kbv_tensor *bias = node->n_args == 3 ? &args[2] : NULL;
    int is_f64, f;
    KBV_TRY(kbv_cuda_float_of(be, x, &is_f64));
    KBV_TRY(kbv_cuda_float_of(be, w, &f));
    if (bias)
        KBV_TRY(kbv_cuda_float_of(be, bias, &f));
    if (x->ndim < 1 || w->ndim != 2 || x->shape[x->ndim - 1] != w->shape[1] ||
        (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])))
        return kbv_fail(KBV_ERR_INVALID, "linear: operands are not [..., K], [N, K], [N]");
    const int64_t n = w->shape[0], k = w->shape[1], m = kbv_tensor_numel(x) / (k ? k : 1);
    KBV_TRY(kbv_cuda_check_out(out, m * n, x->dtype, "linear"));
    if (m == 0 || n == 0)
        return KBV_OK;

    const bool lt = bias && kbv_tensor_is_contiguous(x) && kbv_tensor_is_contiguous(bias) &&
                    kbv_tensor_is_contiguous(w) && n > 1 && k > 1;
    if (lt) {
        const kbv_gemm_bias g = {.is_f64 = is_f64, .m = m, .n = n, .k = k, .x = x->data,
                                 .w = w->data, .bias = bias->data, .ldx = k, .ldw = k,
                                 .c = out->data};
        kbv_status st = kbv_cuda_gemm_bias(be, &g);
        if (st != KBV_ERR_UNSUPPORTED)
            return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
    }
    kbv_tensor wt = *w; /* w.t(): a view */
    wt.shape[0] = w->shape[1];
    wt.shape[1] = w->shape[0];
    wt.stride[0] = w->stride[1];
    wt.stride[1] = w->stride[0];
    KBV_TRY(kbv_cuda_matmul_into(be, x, &wt, out, "linear"));
    if (bias)
        KBV_TRY(add_bias(be, bias, out, is_f64));
    return KBV_OK;
}
