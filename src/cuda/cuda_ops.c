/* The CUDA backend's op table, and the ops that run kbv's own kernels:
 * elementwise, softmax, diag, triu/tril, clone, and the transpose view. (The
 * cuBLAS ops are in cuda_matmul.c.) Each op checks its operands, picks the
 * fastest kernel that applies (contiguous 16-byte paths first, strided
 * index math otherwise) and enqueues it on the backend's stream. */
#include "cuda/cuda_check.h"
#include "cuda/cuda_conv.h"
#include "cuda/cuda_impl.h"
#include "cuda/cuda_ops.h"
#include "exec/einsum_pairwise.h"
#include "exec/view.h"
#include "exec/view_select.h"
#include "graph/graph.h"
#include "graph/ops_table.h"

/* SELU's constants to full precision (PyTorch's Activation.cpp). */
#define KBV_SELU_ALPHA 1.6732632423543772848170429916717
#define KBV_SELU_SCALE 1.0507009873554804934193349852946

static const char *op_name(kbv_op op)
{
    return (unsigned)op < KBV_OP_COUNT && kbv_op_table[op].name ? kbv_op_table[op].name : "op";
}

static kbv_status launched(cudaError_t err, kbv_op op)
{
    if (err != cudaSuccess)
        return kbv_fail(err == cudaErrorMemoryAllocation ? KBV_ERR_NOMEM : KBV_ERR_CUDA,
                        "%s kernel launch: %s (%s)", op_name(op), cudaGetErrorString(err),
                        cudaGetErrorName(err));
    return KBV_OK;
}

static void strides_of(const kbv_tensor *t, kbv_cuda_layout *l)
{
    l->ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        l->shape[d] = t->shape[d];
        l->stride[d] = t->stride[d];
    }
}

/* ---- elementwise ---- */

static kbv_status op_unary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0];
    /* a float32 operand on the float64 backend: the oracle's input, read as
     * its float64 value (kbv_graph_takes_f32_input) */
    const bool widen = be->float_dtype == KBV_F64 && x->dtype == KBV_F32;
    int kind = KBV_CUDA_KIND_F64;
    if (!widen)
        KBV_TRY(kbv_cuda_float_kind(be, x, &kind));
    const int64_t n = kbv_tensor_numel(x);
    KBV_TRY(kbv_cuda_check_out(out, n, be->float_dtype, op_name(node->op)));
    if (widen && !kbv_tensor_is_contiguous(x))
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: a float32 operand on %s must be contiguous",
                        op_name(node->op), be->name);
    double p0 = 0.0, p1 = 0.0;
    const double *f = node->def ? node->def->f : NULL;
    switch (node->op) {
    case KBV_OP_LEAKY_RELU:
    case KBV_OP_ELU:
    case KBV_OP_ADD_SCALAR:
    case KBV_OP_MUL_SCALAR:
        if (!f)
            return kbv_fail(KBV_ERR_INVALID, "%s: no attribute f[0]", op_name(node->op));
        p0 = f[0];
        break;
    case KBV_OP_HARDTANH:
    case KBV_OP_CLAMP:
        if (!f)
            return kbv_fail(KBV_ERR_INVALID, "%s: no bounds f[0], f[1]", op_name(node->op));
        p0 = f[0];
        p1 = f[1];
        break;
    case KBV_OP_CLAMP_MAX:
    case KBV_OP_SUB_SCALAR:
        if (!f)
            return kbv_fail(KBV_ERR_INVALID, "%s: no attribute f[0]", op_name(node->op));
        p0 = f[0];
        break;
    case KBV_OP_DIV_SCALAR:
        /* PyTorch divides by a CPU scalar as a product with its reciprocal,
         * computed in the tensor's opmath type (float for bfloat16) */
        if (!f)
            return kbv_fail(KBV_ERR_INVALID, "div_scalar: no divisor f[0]");
        p0 = kind == KBV_CUDA_KIND_F64 ? 1.0 / f[0] : (double)(1.0f / (float)f[0]);
        break;
    case KBV_OP_MIN_SCALAR:
    case KBV_OP_MAX_SCALAR:
        /* torch.tensor(f0): a float32 0-dim tensor, also against float64 */
        if (!f)
            return kbv_fail(KBV_ERR_INVALID, "%s: no constant f[0]", op_name(node->op));
        p0 = (double)(float)f[0];
        break;
    case KBV_OP_SELU:
        p0 = KBV_SELU_ALPHA;
        p1 = KBV_SELU_SCALE;
        break;
    default:
        break;
    }
    if (widen)
        return launched(kbv_cuda_launch_unary_widen(cu->stream, node->op, p0, p1, x->data,
                                                    out->data, n),
                        node->op);
    if (kbv_tensor_is_contiguous(x))
        return launched(kbv_cuda_launch_unary(cu->stream, node->op, kind, p0, p1, x->data,
                                              out->data, n),
                        node->op);
    kbv_cuda_layout l;
    strides_of(x, &l);
    return launched(kbv_cuda_launch_unary_strided(cu->stream, node->op, kind, p0, p1, x->data,
                                                  &l, out->data),
                    node->op);
}

static kbv_status op_binary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *a = &args[0], *b = &args[1];
    const int64_t n = kbv_tensor_numel(out);
    /* a bf16 tensor meets a float32 0-d one (a Python number) as an opmath float */
    const bool a_f32_scalar = a->dtype == KBV_F32 && a->ndim == 0;
    const bool b_f32_scalar = b->dtype == KBV_F32 && b->ndim == 0;
    if (be->float_dtype == KBV_BF16 && (a_f32_scalar != b_f32_scalar)) {
        const kbv_tensor *t = a_f32_scalar ? b : a, *sc = a_f32_scalar ? a : b;
        int tk;
        KBV_TRY(kbv_cuda_float_kind(be, t, &tk));
        KBV_TRY(kbv_cuda_check_out(out, n, t->dtype, op_name(node->op)));
        if (kbv_tensor_numel(t) != n || !kbv_tensor_is_contiguous(t))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: a bf16 tensor and a float32 scalar need "
                            "the tensor contiguous in the output's shape", op_name(node->op));
        return launched(kbv_cuda_launch_binary_f32_scalar(cu->stream, node->op, t->data,
                                                          sc->data, a_f32_scalar, out->data, n),
                        node->op);
    }
    int kind, b_kind;
    KBV_TRY(kbv_cuda_float_kind(be, a, &kind));
    KBV_TRY(kbv_cuda_float_kind(be, b, &b_kind));
    if (kind != b_kind)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operands of two float types (%s, %s)",
                        op_name(node->op), kbv_dtype_name(a->dtype), kbv_dtype_name(b->dtype));
    KBV_TRY(kbv_cuda_check_out(out, n, a->dtype, op_name(node->op)));
    kbv_cuda_layout la, lb;
    KBV_TRY(kbv_cuda_broadcast_layout(a, out->ndim, out->shape, &la));
    KBV_TRY(kbv_cuda_broadcast_layout(b, out->ndim, out->shape, &lb));
    const int64_t na = kbv_tensor_numel(a), nb = kbv_tensor_numel(b);
    /* a broadcastable operand with as many elements as the output is the
     * output's shape up to leading 1s: contiguous, it is read in order */
    const bool a_full = na == n && kbv_tensor_is_contiguous(a);
    const bool b_full = nb == n && kbv_tensor_is_contiguous(b);
    cudaError_t err;
    if ((a_full || na == 1) && (b_full || nb == 1))
        err = kbv_cuda_launch_binary(cu->stream, node->op, kind, a->data, !a_full,
                                     b->data, !b_full, out->data, n);
    else
        err = kbv_cuda_launch_binary_strided(cu->stream, node->op, kind, a->data, &la,
                                             b->data, &lb, out->data);
    return launched(err, node->op);
}

/* ---- softmax ---- */

static kbv_status op_softmax(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    void *scratch = NULL;
    const kbv_tensor *x_in = &args[0];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x_in, &kind));
    const int nd = x_in->ndim;
    int64_t dim = node->def ? node->def->i[0] : -1;
    if (dim < 0)
        dim += nd > 0 ? nd : 1;
    if (dim < 0 || dim >= (nd > 0 ? nd : 1))
        return kbv_fail(KBV_ERR_INVALID, "%s: dim %lld out of range for %d dims",
                        op_name(node->op), (long long)(node->def ? node->def->i[0] : -1), nd);
    const int64_t n = kbv_tensor_numel(x_in);
    KBV_TRY(kbv_cuda_check_out(out, n, x_in->dtype, op_name(node->op)));
    if (n == 0)
        return KBV_OK;
    /* PyTorch's softmax reads a contiguous input; a view gets a copy first */
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, x_in, &x, &scratch));
    const int is_log = node->op == KBV_OP_LOG_SOFTMAX;
    cudaError_t err;
    if (nd == 0 || dim == nd - 1) {
        const int64_t cols = nd == 0 ? 1 : x.shape[nd - 1];
        err = kbv_cuda_launch_softmax_lastdim(cu->stream, cu->sms, is_log, kind, x.data,
                                              out->data, n / cols, cols);
    } else {
        int64_t outer = 1, inner = 1;
        for (int d = 0; d < dim; d++)
            outer *= x.shape[d];
        for (int d = (int)dim + 1; d < nd; d++)
            inner *= x.shape[d];
        err = kbv_cuda_launch_softmax_strided(cu->stream, cu->sms, is_log, kind, x.data,
                                              out->data, outer, x.shape[dim], inner);
    }
    st = launched(err, node->op);
    be->release(be, scratch);
    return st;
}

/* ---- layout ---- */

static kbv_status op_diag(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x, &kind));
    const int64_t k = node->def ? node->def->i[0] : 0;
    if (x->ndim == 1) {
        const int64_t m = x->shape[0] + (k >= 0 ? k : -k);
        KBV_TRY(kbv_cuda_check_out(out, m * m, x->dtype, "diag"));
        return launched(kbv_cuda_launch_diag_embed(cu->stream, kind, x->data,
                                                   x->shape[0], x->stride[0], k, out->data),
                        node->op);
    }
    if (x->ndim == 2) {
        const int64_t r0 = k >= 0 ? 0 : -k, c0 = k >= 0 ? k : 0;
        int64_t len = x->shape[0] - r0 < x->shape[1] - c0 ? x->shape[0] - r0 : x->shape[1] - c0;
        if (len < 0)
            len = 0;
        KBV_TRY(kbv_cuda_check_out(out, len, x->dtype, "diag"));
        return launched(kbv_cuda_launch_diag_extract(cu->stream, kind, x->data,
                                                     x->stride[0], x->stride[1], r0, c0, len,
                                                     out->data),
                        node->op);
    }
    return kbv_fail(KBV_ERR_INVALID, "diag: expects a 1-d or 2-d tensor, got %d dims", x->ndim);
}

static kbv_status op_tri(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st;
    void *scratch = NULL;
    const kbv_tensor *x_in = &args[0];
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, x_in, &kind));
    if (x_in->ndim < 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: expects at least 2 dims, got %d",
                        op_name(node->op), x_in->ndim);
    const int64_t n = kbv_tensor_numel(x_in);
    KBV_TRY(kbv_cuda_check_out(out, n, x_in->dtype, op_name(node->op)));
    if (n == 0)
        return KBV_OK;
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, x_in, &x, &scratch));
    const int64_t rows = x.shape[x.ndim - 2], cols = x.shape[x.ndim - 1];
    const int64_t k = node->def ? node->def->i[0] : 0;
    st = launched(kbv_cuda_launch_tri(cu->stream, kind, node->op == KBV_OP_TRIU, k,
                                      x.data, out->data, n / (rows * cols), rows, cols),
                  node->op);
    be->release(be, scratch);
    return st;
}

/* a.T: a view with the dims reversed; no kernel, no memory. */
static kbv_status op_transpose(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    (void)be;
    (void)node;
    const kbv_tensor *x = &args[0];
    out->data = x->data;
    out->dtype = x->dtype;
    out->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        out->shape[d] = x->shape[x->ndim - 1 - d];
        out->stride[d] = x->stride[x->ndim - 1 - d];
    }
    return KBV_OK;
}

/* a.clone(): a contiguous copy, as PyTorch's copy_ makes it (one device
 * copy for a contiguous operand). */
static kbv_status op_clone(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const kbv_tensor *x = &args[0];
    const int64_t n = kbv_tensor_numel(x);
    KBV_TRY(kbv_cuda_check_out(out, n, x->dtype, "clone"));
    if (n == 0)
        return KBV_OK;
    const size_t esize = kbv_dtype_size(x->dtype);
    if (kbv_tensor_is_contiguous(x))
        return launched(cudaMemcpyAsync(out->data, x->data, (size_t)n * esize,
                                        cudaMemcpyDeviceToDevice, cu->stream),
                        node->op);
    kbv_cuda_layout l;
    strides_of(x, &l);
    return launched(kbv_cuda_launch_copy_strided(cu->stream, esize, x->data, &l, out->data),
                    node->op);
}

static const kbv_op_fn cuda_ops[KBV_OP_COUNT] = {
    [KBV_OP_MATMUL] = kbv_cuda_op_matmul,
    [KBV_OP_BMM] = kbv_cuda_op_bmm,
    [KBV_OP_EINSUM] = kbv_cuda_op_einsum,
    [KBV_OP_TRANSPOSE] = op_transpose,
    [KBV_OP_DIAG] = op_diag,
    [KBV_OP_TRIU] = op_tri,
    [KBV_OP_TRIL] = op_tri,
    [KBV_OP_ADD] = op_binary,
    [KBV_OP_SUB] = op_binary,
    [KBV_OP_MUL] = op_binary,
    [KBV_OP_DIV] = op_binary,
    [KBV_OP_ADD_SCALAR] = op_unary,
    [KBV_OP_MUL_SCALAR] = op_unary,
    [KBV_OP_ABS] = op_unary,
    [KBV_OP_RELU] = op_unary,
    [KBV_OP_LEAKY_RELU] = op_unary,
    [KBV_OP_SIGMOID] = op_unary,
    [KBV_OP_TANH] = op_unary,
    [KBV_OP_GELU] = op_unary,
    [KBV_OP_SELU] = op_unary,
    [KBV_OP_HARDSIGMOID] = op_unary,
    [KBV_OP_SOFTPLUS] = op_unary,
    [KBV_OP_ELU] = op_unary,
    [KBV_OP_HARDTANH] = op_unary,
    [KBV_OP_SOFTMAX] = op_softmax,
    [KBV_OP_LOG_SOFTMAX] = op_softmax,

    /* normalisation, reduction, scan, loss and attention ops (cuda_ops_norm.c,
     * cuda_attention.c) */
    [KBV_OP_BATCH_NORM] = kbv_cuda_op_norm,
    [KBV_OP_INSTANCE_NORM] = kbv_cuda_op_norm,
    [KBV_OP_GROUP_NORM] = kbv_cuda_op_norm,
    [KBV_OP_LAYER_NORM] = kbv_cuda_op_norm,
    [KBV_OP_SUM] = kbv_cuda_op_reduce,
    [KBV_OP_MEAN] = kbv_cuda_op_reduce,
    [KBV_OP_MAX] = kbv_cuda_op_reduce,
    [KBV_OP_MIN] = kbv_cuda_op_reduce,
    [KBV_OP_ARGMAX] = kbv_cuda_op_reduce,
    [KBV_OP_ARGMIN] = kbv_cuda_op_reduce,
    [KBV_OP_NORM_DIM] = kbv_cuda_op_reduce,
    [KBV_OP_MEAN_ALL] = kbv_cuda_op_reduce_all,
    [KBV_OP_NORM_FRO] = kbv_cuda_op_reduce_all,
    [KBV_OP_POW_SCALAR] = kbv_cuda_op_pointwise,
    [KBV_OP_SQRT] = kbv_cuda_op_pointwise,
    [KBV_OP_LOG] = kbv_cuda_op_pointwise,
    [KBV_OP_RSUB_SCALAR] = kbv_cuda_op_pointwise,
    [KBV_OP_CLAMP_MIN] = kbv_cuda_op_pointwise,
    [KBV_OP_MUL_MASK] = kbv_cuda_op_mul_mask,
    [KBV_OP_CUMSUM] = kbv_cuda_op_scan,
    [KBV_OP_CUMPROD] = kbv_cuda_op_scan,
    [KBV_OP_FLIP] = kbv_cuda_op_flip,
    [KBV_OP_ZEROS_SLICE] = kbv_cuda_op_zeros_slice,
    [KBV_OP_CAT] = kbv_cuda_op_cat,
    [KBV_OP_DROP_LAST] = kbv_cuda_op_drop_last,
    [KBV_OP_CROSS_ENTROPY] = kbv_cuda_op_loss,
    [KBV_OP_SMOOTH_L1] = kbv_cuda_op_loss,
    [KBV_OP_KL_DIV] = kbv_cuda_op_loss,
    [KBV_OP_TRIPLET_MARGIN] = kbv_cuda_op_loss,
    [KBV_OP_SDPA] = kbv_cuda_op_sdpa,
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops (cuda_conv.c: cuDNN; pooling and depthwise kernels) */
    [KBV_OP_CONV1D] = kbv_cuda_op_conv,
    [KBV_OP_CONV2D] = kbv_cuda_op_conv,
    [KBV_OP_CONV3D] = kbv_cuda_op_conv,
    [KBV_OP_CONV1D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_CONV2D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_CONV3D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE1D] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE2D] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE3D] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE1D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE2D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_CONV_TRANSPOSE3D_BIAS] = kbv_cuda_op_conv,
    [KBV_OP_MAX_POOL1D] = kbv_cuda_op_pool,
    [KBV_OP_MAX_POOL2D] = kbv_cuda_op_pool,
    [KBV_OP_MAX_POOL3D] = kbv_cuda_op_pool,
    [KBV_OP_AVG_POOL1D] = kbv_cuda_op_pool,
    [KBV_OP_AVG_POOL2D] = kbv_cuda_op_pool,
    [KBV_OP_AVG_POOL3D] = kbv_cuda_op_pool,
    /* (end of convolution and pooling ops) */

    /* the level-2 ops */
    [KBV_OP_LINEAR] = kbv_cuda_op_linear,
    [KBV_OP_CLAMP] = op_unary,
    [KBV_OP_CLAMP_MAX] = op_unary,
    [KBV_OP_SUB_SCALAR] = op_unary,
    [KBV_OP_DIV_SCALAR] = op_unary,
    [KBV_OP_MISH] = op_unary,
    [KBV_OP_HARDSWISH] = op_unary,
    [KBV_OP_GELU_TANH] = op_unary,
    [KBV_OP_SILU] = op_unary,
    [KBV_OP_MINIMUM] = op_binary,
    [KBV_OP_MAXIMUM] = op_binary,
    [KBV_OP_MIN_SCALAR] = op_unary,
    [KBV_OP_MAX_SCALAR] = op_unary,
    [KBV_OP_SUM_DIMS] = kbv_cuda_op_reduce_dims,
    [KBV_OP_MEAN_DIMS] = kbv_cuda_op_reduce_dims,
    [KBV_OP_AMAX_DIMS] = kbv_cuda_op_reduce_dims,
    [KBV_OP_LOGSUMEXP] = kbv_cuda_op_logsumexp,
    [KBV_OP_ADAPTIVE_AVG_POOL1D] = kbv_cuda_op_adaptive_pool,
    [KBV_OP_ADAPTIVE_AVG_POOL2D] = kbv_cuda_op_adaptive_pool,
    [KBV_OP_ADAPTIVE_AVG_POOL3D] = kbv_cuda_op_adaptive_pool,
    [KBV_OP_UNSQUEEZE] = kbv_view_op,
    [KBV_OP_SQUEEZE] = kbv_view_op,
    [KBV_OP_SQUEEZE_ALL] = kbv_view_op,
    [KBV_OP_VIEW] = kbv_view_op,
    [KBV_OP_FLATTEN] = kbv_view_op,
    [KBV_OP_CLONE] = op_clone,
    [KBV_OP_DROPOUT] = kbv_view_op,
    /* (end of the level-2 ops) */
    [KBV_OP_TRANSPOSE_DIMS] = kbv_view_op,
    [KBV_OP_PERMUTE] = kbv_view_op,
    [KBV_OP_NARROW] = kbv_view_op,
    [KBV_OP_EXPAND] = kbv_view_op,
    [KBV_OP_CONTIGUOUS] = kbv_view_op,
    [KBV_OP_RESHAPE] = kbv_view_op,
    [KBV_OP_SPLIT] = kbv_view_op,
    [KBV_OP_CHUNK] = kbv_view_op,

    /* the recurrent ops */
    [KBV_OP_SELECT] = kbv_select_op,
    [KBV_OP_STACK] = kbv_cuda_op_stack,
    [KBV_OP_ZEROS_STATE] = kbv_cuda_op_zeros_slice, /* both fill their result with zeros */
    [KBV_OP_LSTM] = kbv_cuda_op_rnn,
    [KBV_OP_GRU] = kbv_cuda_op_rnn,
    /* (end of the recurrent ops) */

    /* the attention ops */
    [KBV_OP_MASKED_FILL] = kbv_cuda_op_masked_fill,
    [KBV_OP_EQ_SCALAR] = kbv_cuda_op_eq_scalar,
    [KBV_OP_UNFOLD] = kbv_view_op,
    /* (end of the attention ops) */
    /* the Swin ops */
    [KBV_OP_PAD] = kbv_cuda_op_shifted,
    [KBV_OP_SLICE] = kbv_view_op,
    [KBV_OP_ROLL] = kbv_cuda_op_shifted,
    [KBV_OP_INDEX] = kbv_cuda_op_index,
    [KBV_OP_ZEROS_LIKE] = kbv_cuda_op_zeros_slice, /* fills its result with zeros */
    /* (end of the Swin ops) */
    /* NetVLAD and Mamba-2 */
    [KBV_OP_EXP] = op_unary,
    [KBV_OP_NORMALIZE] = kbv_cuda_op_normalize,
    [KBV_OP_EINSUM_N] = kbv_einsum_pairwise, /* cuBLAS bmm steps (exec/einsum_pairwise.c) */
    [KBV_OP_SEGSUM_MASK] = kbv_cuda_op_segsum_mask,
    /* (end of the NetVLAD and Mamba-2 ops) */
};

const kbv_op_fn *kbv_cuda_op_table(void) { return cuda_ops; }

bool kbv_cuda_widens_f32(const kbv_backend *be, kbv_op op)
{
    return be->float_dtype == KBV_F64 && (unsigned)op < KBV_OP_COUNT && cuda_ops[op] == op_unary;
}
