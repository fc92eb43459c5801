/* The CPU backend: its table of ops, its allocator and its construction.
 *
 * Float values are stored as float32 in fp32-strict, fp32 and tf32 (all three
 * are plain IEEE float32 arithmetic on the CPU), as float64 in fp64 and as
 * bfloat16 in bf16 (each op then runs its float32 kernel: cpu_bf16_ops.c). */
#include "cpu/cpu_backend.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_conv_pool.h"
#include "cpu/cpu_ops.h"
#include "exec/einsum_pairwise.h"
#include "exec/view.h"
#include "exec/view_select.h"
#include "graph/ops_table.h"

/* Every block is 256-byte aligned, as kbv_env.alloc promises candidates, and
 * carries its counted size in a header of that many bytes before it. */
#define KBV_CPU_ALIGN 256
/* Statistics round each request up as PyTorch's CUDA caching allocator does,
 * so peaks compare with torch.cuda.max_memory_allocated. */
#define KBV_CPU_STAT_ROUND 512

static const kbv_op_fn cpu_ops[KBV_OP_COUNT] = {
    [KBV_OP_MATMUL] = kbv_cpu_matmul,
    [KBV_OP_BMM] = kbv_cpu_bmm,
    [KBV_OP_EINSUM] = kbv_cpu_einsum,
    [KBV_OP_TRANSPOSE] = kbv_cpu_transpose,
    [KBV_OP_DIAG] = kbv_cpu_diag,
    [KBV_OP_TRIU] = kbv_cpu_triangle,
    [KBV_OP_TRIL] = kbv_cpu_triangle,
    [KBV_OP_ADD] = kbv_cpu_binary,
    [KBV_OP_SUB] = kbv_cpu_binary,
    [KBV_OP_MUL] = kbv_cpu_binary,
    [KBV_OP_DIV] = kbv_cpu_binary,
    [KBV_OP_ADD_SCALAR] = kbv_cpu_unary,
    [KBV_OP_MUL_SCALAR] = kbv_cpu_unary,
    [KBV_OP_ABS] = kbv_cpu_unary,
    [KBV_OP_RELU] = kbv_cpu_unary,
    [KBV_OP_LEAKY_RELU] = kbv_cpu_unary,
    [KBV_OP_SIGMOID] = kbv_cpu_unary,
    [KBV_OP_TANH] = kbv_cpu_unary,
    [KBV_OP_GELU] = kbv_cpu_unary,
    [KBV_OP_SELU] = kbv_cpu_unary,
    [KBV_OP_HARDSIGMOID] = kbv_cpu_unary,
    [KBV_OP_SOFTPLUS] = kbv_cpu_unary,
    [KBV_OP_ELU] = kbv_cpu_unary,
    [KBV_OP_HARDTANH] = kbv_cpu_unary,
    [KBV_OP_SOFTMAX] = kbv_cpu_softmax,
    [KBV_OP_LOG_SOFTMAX] = kbv_cpu_softmax,

    /* normalisation, reduction, scan, loss and attention ops */
    [KBV_OP_BATCH_NORM] = kbv_cpu_norm,
    [KBV_OP_INSTANCE_NORM] = kbv_cpu_norm,
    [KBV_OP_GROUP_NORM] = kbv_cpu_norm,
    [KBV_OP_LAYER_NORM] = kbv_cpu_norm,
    [KBV_OP_SUM] = kbv_cpu_reduce,
    [KBV_OP_MEAN] = kbv_cpu_reduce,
    [KBV_OP_MAX] = kbv_cpu_reduce,
    [KBV_OP_MIN] = kbv_cpu_reduce,
    [KBV_OP_ARGMAX] = kbv_cpu_reduce,
    [KBV_OP_ARGMIN] = kbv_cpu_reduce,
    [KBV_OP_NORM_DIM] = kbv_cpu_reduce,
    [KBV_OP_MEAN_ALL] = kbv_cpu_reduce_all,
    [KBV_OP_NORM_FRO] = kbv_cpu_reduce_all,
    [KBV_OP_POW_SCALAR] = kbv_cpu_pointwise,
    [KBV_OP_SQRT] = kbv_cpu_pointwise,
    [KBV_OP_LOG] = kbv_cpu_pointwise,
    [KBV_OP_RSUB_SCALAR] = kbv_cpu_pointwise,
    [KBV_OP_CLAMP_MIN] = kbv_cpu_pointwise,
    [KBV_OP_MUL_MASK] = kbv_cpu_mul_mask,
    [KBV_OP_CUMSUM] = kbv_cpu_scan,
    [KBV_OP_CUMPROD] = kbv_cpu_scan,
    [KBV_OP_FLIP] = kbv_cpu_flip,
    [KBV_OP_ZEROS_SLICE] = kbv_cpu_zeros_slice,
    [KBV_OP_CAT] = kbv_cpu_cat,
    [KBV_OP_DROP_LAST] = kbv_cpu_drop_last,
    [KBV_OP_CROSS_ENTROPY] = kbv_cpu_loss,
    [KBV_OP_SMOOTH_L1] = kbv_cpu_loss,
    [KBV_OP_KL_DIV] = kbv_cpu_loss,
    [KBV_OP_TRIPLET_MARGIN] = kbv_cpu_loss,
    [KBV_OP_SDPA] = kbv_cpu_sdpa,
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops */
    [KBV_OP_CONV1D] = kbv_cpu_conv,
    [KBV_OP_CONV2D] = kbv_cpu_conv,
    [KBV_OP_CONV3D] = kbv_cpu_conv,
    [KBV_OP_CONV1D_BIAS] = kbv_cpu_conv,
    [KBV_OP_CONV2D_BIAS] = kbv_cpu_conv,
    [KBV_OP_CONV3D_BIAS] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE1D] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE2D] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE3D] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE1D_BIAS] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE2D_BIAS] = kbv_cpu_conv,
    [KBV_OP_CONV_TRANSPOSE3D_BIAS] = kbv_cpu_conv,
    [KBV_OP_MAX_POOL1D] = kbv_cpu_pool,
    [KBV_OP_MAX_POOL2D] = kbv_cpu_pool,
    [KBV_OP_MAX_POOL3D] = kbv_cpu_pool,
    [KBV_OP_AVG_POOL1D] = kbv_cpu_pool,
    [KBV_OP_AVG_POOL2D] = kbv_cpu_pool,
    [KBV_OP_AVG_POOL3D] = kbv_cpu_pool,
    /* (end of convolution and pooling ops) */

    /* the level-2 ops */
    [KBV_OP_LINEAR] = kbv_cpu_linear,
    [KBV_OP_CLAMP] = kbv_cpu_unary,
    [KBV_OP_CLAMP_MAX] = kbv_cpu_unary,
    [KBV_OP_SUB_SCALAR] = kbv_cpu_unary,
    [KBV_OP_DIV_SCALAR] = kbv_cpu_unary,
    [KBV_OP_MISH] = kbv_cpu_unary,
    [KBV_OP_HARDSWISH] = kbv_cpu_unary,
    [KBV_OP_GELU_TANH] = kbv_cpu_unary,
    [KBV_OP_SILU] = kbv_cpu_unary,
    [KBV_OP_MINIMUM] = kbv_cpu_binary,
    [KBV_OP_MAXIMUM] = kbv_cpu_binary,
    [KBV_OP_MIN_SCALAR] = kbv_cpu_unary,
    [KBV_OP_MAX_SCALAR] = kbv_cpu_unary,
    [KBV_OP_SUM_DIMS] = kbv_cpu_reduce_dims,
    [KBV_OP_MEAN_DIMS] = kbv_cpu_reduce_dims,
    [KBV_OP_AMAX_DIMS] = kbv_cpu_reduce_dims,
    [KBV_OP_LOGSUMEXP] = kbv_cpu_reduce_dims,
    [KBV_OP_ADAPTIVE_AVG_POOL1D] = kbv_cpu_adaptive_pool,
    [KBV_OP_ADAPTIVE_AVG_POOL2D] = kbv_cpu_adaptive_pool,
    [KBV_OP_ADAPTIVE_AVG_POOL3D] = kbv_cpu_adaptive_pool,
    [KBV_OP_UNSQUEEZE] = kbv_view_op,
    [KBV_OP_SQUEEZE] = kbv_view_op,
    [KBV_OP_SQUEEZE_ALL] = kbv_view_op,
    [KBV_OP_VIEW] = kbv_view_op,
    [KBV_OP_FLATTEN] = kbv_view_op,
    [KBV_OP_CLONE] = kbv_cpu_clone,
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
    [KBV_OP_STACK] = kbv_cpu_stack,
    [KBV_OP_ZEROS_STATE] = kbv_cpu_zeros_slice, /* both fill their result with zeros */
    [KBV_OP_LSTM] = kbv_cpu_rnn,
    [KBV_OP_GRU] = kbv_cpu_rnn,
    /* (end of the recurrent ops) */

    /* the attention ops */
    [KBV_OP_MASKED_FILL] = kbv_cpu_masked_fill,
    [KBV_OP_EQ_SCALAR] = kbv_cpu_eq_scalar,
    [KBV_OP_UNFOLD] = kbv_view_op,
    /* (end of the attention ops) */
    /* the Swin ops */
    [KBV_OP_PAD] = kbv_cpu_shifted,
    [KBV_OP_SLICE] = kbv_view_op,
    [KBV_OP_ROLL] = kbv_cpu_shifted,
    [KBV_OP_INDEX] = kbv_cpu_index,
    [KBV_OP_ZEROS_LIKE] = kbv_cpu_zeros_slice, /* fills its result with zeros */
    /* (end of the Swin ops) */
    /* NetVLAD and Mamba-2 */
    [KBV_OP_EXP] = kbv_cpu_unary,
    [KBV_OP_NORMALIZE] = kbv_cpu_normalize,
    [KBV_OP_EINSUM_N] = kbv_einsum_pairwise,
    [KBV_OP_SEGSUM_MASK] = kbv_cpu_segsum_mask,
    /* (end of the NetVLAD and Mamba-2 ops) */
};

const kbv_op_fn *kbv_cpu_f32_ops(void) { return cpu_ops; }

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static kbv_status cpu_alloc(kbv_backend *be, size_t bytes, void **ptr)
{
    *ptr = NULL;
    if (bytes > SIZE_MAX / 2)
        return kbv_fail(KBV_ERR_NOMEM, "cpu: allocation of %zu bytes is too large", bytes);
    size_t counted = round_up(bytes, KBV_CPU_STAT_ROUND);
    unsigned char *block = aligned_alloc(KBV_CPU_ALIGN,
                                         KBV_CPU_ALIGN + round_up(bytes, KBV_CPU_ALIGN));
    if (!block)
        return kbv_fail(KBV_ERR_NOMEM, "cpu: out of memory allocating %zu bytes "
                        "(%zu bytes in use)", bytes, be->mem.current);
    memcpy(block, &counted, sizeof counted);
    be->mem.current += counted;
    if (be->mem.current > be->mem.peak)
        be->mem.peak = be->mem.current;
    *ptr = block + KBV_CPU_ALIGN;
    return KBV_OK;
}

static void cpu_release(kbv_backend *be, void *ptr)
{
    if (!ptr)
        return;
    unsigned char *block = (unsigned char *)ptr - KBV_CPU_ALIGN;
    size_t counted;
    memcpy(&counted, block, sizeof counted);
    be->mem.current -= counted;
    free(block);
}

static void cpu_reset_peak(kbv_backend *be) { be->mem.peak = be->mem.current; }

/* Nothing is cached: released blocks go straight back to the C library. */
static void cpu_trim(kbv_backend *be) { (void)be; }

/* Every op finishes before it returns. */
static kbv_status cpu_sync(kbv_backend *be)
{
    (void)be;
    return KBV_OK;
}

static kbv_status cpu_to_host(kbv_backend *be, void *host, const void *src, size_t bytes)
{
    return kbv_cpu_copy(be, host, src, bytes);
}

static kbv_status cpu_from_host(kbv_backend *be, void *dst, const void *host, size_t bytes)
{
    return kbv_cpu_copy(be, dst, host, bytes);
}

static void cpu_destroy(kbv_backend *be)
{
    if (!be)
        return;
    kbv_cpu_impl *impl = be->impl;
    if (impl)
        free(impl->flush_buf);
    free(impl);
    free(be);
}

kbv_status kbv_cpu_backend_create(kbv_mode mode, kbv_backend **out)
{
    static const char *const names[KBV_MODE_COUNT] = {
        [KBV_MODE_FP32_STRICT] = "cpu-fp32-strict",
        [KBV_MODE_FP32] = "cpu-fp32",
        [KBV_MODE_TF32] = "cpu-tf32",
        [KBV_MODE_FP64] = "cpu-fp64",
        [KBV_MODE_BF16] = "cpu-bf16",
    };
    *out = NULL;
    if ((unsigned)mode >= KBV_MODE_COUNT)
        return kbv_fail(KBV_ERR_INVALID, "cpu: unknown precision mode %d", (int)mode);
    kbv_backend *be = calloc(1, sizeof *be);
    kbv_cpu_impl *impl = calloc(1, sizeof *impl);
    if (!be || !impl) {
        free(be);
        free(impl);
        return kbv_fail(KBV_ERR_NOMEM, "cpu: out of memory creating the backend");
    }
    be->name = names[mode];
    be->mode = mode;
    be->tensor_math = false;   /* float32 modes are all plain IEEE float32 here */
    be->float_dtype = mode == KBV_MODE_FP64 ? KBV_F64 : mode == KBV_MODE_BF16 ? KBV_BF16 : KBV_F32;
    be->device = -1;
    be->ops = cpu_ops;
    if (mode == KBV_MODE_BF16) {
        for (int op = 0; op < KBV_OP_COUNT; op++)
            impl->bf16_ops[op] = cpu_ops[op] ? kbv_cpu_bf16_op : NULL;
        /* einsum's steps are ops of their own, each rounded to bf16 as PyTorch's are */
        impl->bf16_ops[KBV_OP_EINSUM_N] = kbv_einsum_pairwise;
        be->ops = impl->bf16_ops;
    }
    be->alloc = cpu_alloc;
    be->release = cpu_release;
    be->reset_peak = cpu_reset_peak;
    be->trim = cpu_trim;
    be->sync = cpu_sync;
    be->arena_create = kbv_cpu_arena_create;
    be->arena_destroy = kbv_cpu_arena_destroy;
    be->copy = kbv_cpu_copy;
    be->to_host = cpu_to_host;
    be->from_host = cpu_from_host;
    be->fill = kbv_cpu_fill;
    be->fill_param = kbv_cpu_fill_param;
    be->convert = kbv_cpu_convert;
    be->poison = kbv_cpu_poison;
    be->compare = kbv_cpu_compare;
    be->compare_budget = kbv_cpu_compare_budget;
    be->hash = kbv_cpu_hash;
    be->timer_start = kbv_cpu_timer_start;
    be->timer_stop = kbv_cpu_timer_stop;
    be->flush_cache = kbv_cpu_flush_cache;
    be->destroy = cpu_destroy;
    be->impl = impl;
    *out = be;
    return KBV_OK;
}

const char *kbv_cpu_op_name(const kbv_node *node)
{
    if ((unsigned)node->op >= KBV_OP_COUNT || !kbv_op_table[node->op].name)
        return "unknown op";
    return kbv_op_table[node->op].name;
}

kbv_status kbv_cpu_check_float(const kbv_node *node, const kbv_tensor *args, int n_args,
                               const kbv_tensor *out)
{
    const char *op = kbv_cpu_op_name(node);
    if (node->n_args != n_args)
        return kbv_fail(KBV_ERR_INVALID, "%s: %d operands, expected %d", op, node->n_args,
                        n_args);
    if (out->dtype != KBV_F32 && out->dtype != KBV_F64)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: output dtype %s (the CPU ops compute in "
                        "float32 or float64)", op, kbv_dtype_name(out->dtype));
    if (!out->data && kbv_tensor_numel(out) > 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has no memory", op);
    for (int k = 0; k < n_args; k++) {
        if (args[k].dtype != out->dtype)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is %s, output %s", op, k,
                            kbv_dtype_name(args[k].dtype), kbv_dtype_name(out->dtype));
        if (!args[k].data && kbv_tensor_numel(&args[k]) > 0)
            return kbv_fail(KBV_ERR_INVALID, "%s: operand %d has no memory", op, k);
    }
    return KBV_OK;
}
