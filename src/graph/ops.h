/* The op set. Each op is one PyTorch call; its semantics are PyTorch's.
 * The table in ops.c (one row per op, checked against KBV_OP_COUNT at
 * compile time) holds its shape rule, FLOP count and PyTorch rendering;
 * every backend holds one implementation per op in the same order.
 *
 * Attributes: f[] floats, i[] integers, s a string; listed per op. */
#ifndef KBV_OPS_H
#define KBV_OPS_H

typedef enum kbv_op {
    KBV_OP_NONE = 0,      /* terminates a node list */

    /* linear algebra */
    KBV_OP_MATMUL,        /* torch.matmul(a, b): 1-D/2-D/N-D, batch dims broadcast */
    KBV_OP_BMM,           /* torch.bmm(a, b) */
    KBV_OP_EINSUM,        /* torch.einsum(s, a, b) for contractions that are a matmul ("bijl,lk->bijk") */
    KBV_OP_TRANSPOSE,     /* a.T of a 2-D tensor: a view, no copy */
    KBV_OP_DIAG,          /* torch.diag(a): 1-D -> materialised N x N */
    KBV_OP_TRIU,          /* torch.triu(a, diagonal=i[0]) */
    KBV_OP_TRIL,          /* torch.tril(a, diagonal=i[0]) */

    /* elementwise binary, with broadcasting (a 0-dim operand included) */
    KBV_OP_ADD,           /* a + b */
    KBV_OP_SUB,           /* a - b */
    KBV_OP_MUL,           /* a * b */
    KBV_OP_DIV,           /* a / b */

    /* elementwise with a Python-number constant f[0] */
    KBV_OP_ADD_SCALAR,    /* f[0] + a */
    KBV_OP_MUL_SCALAR,    /* a * f[0] */

    /* elementwise unary */
    KBV_OP_ABS,
    KBV_OP_RELU,          /* torch.relu */
    KBV_OP_LEAKY_RELU,    /* F.leaky_relu(a, negative_slope=f[0]) */
    KBV_OP_SIGMOID,
    KBV_OP_TANH,
    KBV_OP_GELU,          /* F.gelu(a): exact, erf form */
    KBV_OP_SELU,
    KBV_OP_HARDSIGMOID,   /* F.hardsigmoid: relu6(x + 3) / 6 */
    KBV_OP_SOFTPLUS,      /* F.softplus(a): beta 1, threshold 20 */
    KBV_OP_ELU,           /* F.elu(a, alpha=f[0]) */
    KBV_OP_HARDTANH,      /* F.hardtanh(a, min_val=f[0], max_val=f[1]) */

    /* along one dim i[0] (negative counts from the end) */
    KBV_OP_SOFTMAX,       /* torch.softmax(a, dim=i[0]) */
    KBV_OP_LOG_SOFTMAX,   /* torch.log_softmax(a, dim=i[0]) */

    /* normalisation, reduction, scan, loss and attention ops */
    /* normalisation: biased variance, eps inside the square root, as PyTorch */
    KBV_OP_BATCH_NORM,    /* F.batch_norm(a, None, None, w=b, bias=c, training=True, momentum=f[1],
                             eps=f[0]): batch statistics per dim-1 channel */
    KBV_OP_INSTANCE_NORM, /* F.instance_norm(a, eps=f[0]): per (n, c), no affine */
    KBV_OP_GROUP_NORM,    /* F.group_norm(a, i[0] groups, w=b, bias=c, eps=f[0]) */
    KBV_OP_LAYER_NORM,    /* F.layer_norm(a, b.shape, w=b, bias=c, eps=f[0]) */
    /* reductions along dim i[0] with keepdim i[1] (0 or 1) */
    KBV_OP_SUM,           /* torch.sum(a, dim=i[0], keepdim=i[1]) */
    KBV_OP_MEAN,          /* torch.mean(a, dim=i[0], keepdim=i[1]) */
    KBV_OP_MAX,           /* torch.max(a, dim=i[0], keepdim=i[1]).values */
    KBV_OP_MIN,           /* torch.min(a, dim=i[0], keepdim=i[1]).values */
    KBV_OP_ARGMAX,        /* torch.argmax(a, dim=i[0], keepdim=i[1]): int64, first index on ties */
    KBV_OP_ARGMIN,        /* torch.argmin(a, dim=i[0], keepdim=i[1]): int64, first index on ties */
    KBV_OP_NORM_DIM,      /* torch.norm(a, p=2, dim=i[0], keepdim=i[1]) */
    KBV_OP_MEAN_ALL,      /* torch.mean(a): 0-dim */
    KBV_OP_NORM_FRO,      /* torch.norm(a, p="fro"): 0-dim */
    /* elementwise pieces the normalisation, GELU and loss modules write out */
    KBV_OP_POW_SCALAR,    /* torch.pow(a, f[0]) */
    KBV_OP_SQRT,          /* torch.sqrt(a) */
    KBV_OP_LOG,           /* torch.log(a) */
    KBV_OP_RSUB_SCALAR,   /* f[0] - a */
    KBV_OP_CLAMP_MIN,     /* torch.clamp(a, min=f[0]) */
    KBV_OP_MUL_MASK,      /* a * b with b a bool tensor (broadcast), promoted to a's dtype */
    /* scans and the layout ops around them, along dim i[0] */
    KBV_OP_CUMSUM,        /* torch.cumsum(a, dim=i[0]) */
    KBV_OP_CUMPROD,       /* torch.cumprod(a, dim=i[0]) */
    KBV_OP_FLIP,          /* a.flip(i[0]): a reversed copy */
    KBV_OP_ZEROS_SLICE,   /* torch.zeros_like(a.select(i[0], 0).unsqueeze(i[0])) */
    KBV_OP_CAT,           /* torch.cat((a, b, ...), dim=i[0]): two operands or more */
    KBV_OP_DROP_LAST,     /* a[:-1]: a view without the last index of dim 0 */
    /* losses, reduced to a 0-dim mean as PyTorch's defaults do */
    KBV_OP_CROSS_ENTROPY, /* F.cross_entropy(a, b): a [N, C] logits, b [N] int64 classes */
    KBV_OP_SMOOTH_L1,     /* F.smooth_l1_loss(a, b, beta=f[0]) */
    KBV_OP_KL_DIV,        /* F.kl_div(a, b, reduction="batchmean"): a log-probabilities */
    KBV_OP_TRIPLET_MARGIN,/* F.triplet_margin_loss(a, b, c, margin=f[0], p=2, eps=f[2]) */
    /* attention */
    KBV_OP_SDPA,          /* F.scaled_dot_product_attention(a, b, c): no mask, scale
                             1/sqrt(E); i[0] = 1 when the operands are float16 (the fp32
                             modes then round the result to float16, as PyTorch's half
                             kernels write it) */
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops */
    /* Attributes are PyTorch's own keyword arguments, in s, rendered verbatim
     * and parsed by graph/ops_conv.h (ints or tuples of one int per spatial
     * dim; omitted ones take PyTorch's defaults). a is [N, C, *spatial]; the
     * conv weight b is [C_out, C_in/groups, *k], the transposed one
     * [C_in, C_out/groups, *k]; c is the bias [C_out]. */
    KBV_OP_CONV1D,        /* F.conv1d(a, b, None, s): stride, padding, dilation, groups */
    KBV_OP_CONV2D,        /* F.conv2d(a, b, None, s) */
    KBV_OP_CONV3D,        /* F.conv3d(a, b, None, s) */
    KBV_OP_CONV1D_BIAS,   /* F.conv1d(a, b, c, s) */
    KBV_OP_CONV2D_BIAS,   /* F.conv2d(a, b, c, s) */
    KBV_OP_CONV3D_BIAS,   /* F.conv3d(a, b, c, s) */
    KBV_OP_CONV_TRANSPOSE1D,      /* F.conv_transpose1d(a, b, None, s): stride, padding,
                                     output_padding, groups, dilation */
    KBV_OP_CONV_TRANSPOSE2D,      /* F.conv_transpose2d(a, b, None, s) */
    KBV_OP_CONV_TRANSPOSE3D,      /* F.conv_transpose3d(a, b, None, s) */
    KBV_OP_CONV_TRANSPOSE1D_BIAS, /* F.conv_transpose1d(a, b, c, s) */
    KBV_OP_CONV_TRANSPOSE2D_BIAS, /* F.conv_transpose2d(a, b, c, s) */
    KBV_OP_CONV_TRANSPOSE3D_BIAS, /* F.conv_transpose3d(a, b, c, s) */
    KBV_OP_MAX_POOL1D,    /* F.max_pool1d(a, s): kernel_size, stride, padding, dilation,
                             ceil_mode; padding counts as -inf */
    KBV_OP_MAX_POOL2D,    /* F.max_pool2d(a, s) */
    KBV_OP_MAX_POOL3D,    /* F.max_pool3d(a, s) */
    KBV_OP_AVG_POOL1D,    /* F.avg_pool1d(a, s): kernel_size, stride, padding, ceil_mode,
                             count_include_pad */
    KBV_OP_AVG_POOL2D,    /* F.avg_pool2d(a, s) */
    KBV_OP_AVG_POOL3D,    /* F.avg_pool3d(a, s) */
    /* (end of convolution and pooling ops) */

    /* the ops the level-2 problems add */
    /* linear algebra */
    KBV_OP_LINEAR,        /* F.linear(a, b, c): a [..., K], weight b [N, K], bias c [N]; with
                             two operands no bias (nn.Linear(bias=False)) */
    /* elementwise with Python-number constants */
    KBV_OP_CLAMP,         /* torch.clamp(a, min=f[0], max=f[1]) */
    KBV_OP_CLAMP_MAX,     /* torch.clamp(a, max=f[0]) */
    KBV_OP_SUB_SCALAR,    /* a - f[0] */
    KBV_OP_DIV_SCALAR,    /* a / f[0]: a true division, not a * (1 / f[0]) */
    /* elementwise unary */
    KBV_OP_MISH,          /* F.mish(a): a * tanh(softplus(a)) */
    KBV_OP_HARDSWISH,     /* F.hardswish(a): a * relu6(a + 3) / 6 */
    KBV_OP_GELU_TANH,     /* F.gelu(a, approximate="tanh") */
    KBV_OP_SILU,          /* F.silu(a): a * sigmoid(a) in one kernel */
    /* elementwise binary, broadcasting (a 0-dim operand included), NaN propagating */
    KBV_OP_MINIMUM,       /* torch.minimum(a, b) (torch.min(a, b)) */
    KBV_OP_MAXIMUM,       /* torch.maximum(a, b) (torch.max(a, b)) */
    KBV_OP_MIN_SCALAR,    /* torch.min(a, torch.tensor(f[0])): a float32 0-dim constant */
    KBV_OP_MAX_SCALAR,    /* torch.max(a, torch.tensor(f[0])) */
    /* reductions over several dims: i[0] a bitmask (bit d: dim d, dims
     * non-negative), keepdim i[1] */
    KBV_OP_SUM_DIMS,      /* torch.sum(a, dim=(...), keepdim=i[1]) */
    KBV_OP_MEAN_DIMS,     /* torch.mean(a, dim=(...), keepdim=i[1]) */
    KBV_OP_AMAX_DIMS,     /* torch.amax(a, dim=(...), keepdim=i[1]) */
    KBV_OP_LOGSUMEXP,     /* torch.logsumexp(a, dim=i[0], keepdim=i[1]) */
    /* pooling to a fixed output size s = "output_size=..." (an int or a tuple) */
    KBV_OP_ADAPTIVE_AVG_POOL1D, /* F.adaptive_avg_pool1d(a, s) */
    KBV_OP_ADAPTIVE_AVG_POOL2D, /* F.adaptive_avg_pool2d(a, s) */
    KBV_OP_ADAPTIVE_AVG_POOL3D, /* F.adaptive_avg_pool3d(a, s) */
    /* views (no copy: the output aliases a) and copies */
    KBV_OP_UNSQUEEZE,     /* a.unsqueeze(i[0]) */
    KBV_OP_SQUEEZE,       /* a.squeeze(i[0]): the dim goes when its size is 1 */
    KBV_OP_SQUEEZE_ALL,   /* a.squeeze(): every size-1 dim goes */
    KBV_OP_VIEW,          /* a.view(s) of a contiguous a: s the target shape as a tuple of
                             integers, -1 (once), problem dim names, size(k) (a's size k,
                             rendered a.size(k)) and x.size(k) (input x's size k),
                             "(batch_size, -1)" */
    KBV_OP_FLATTEN,       /* torch.flatten(a, start_dim=i[0], end_dim=i[1]) of a contiguous a */
    KBV_OP_CLONE,         /* a.clone(): a contiguous copy */
    KBV_OP_DROPOUT,       /* F.dropout(a, p=f[0], training=i[0]): the identity, a view (a
                             documented deviation for training=1: PyTorch's RNG cannot be
                             matched, see docs/METHODOLOGY.md) */
    /* (end of the level-2 ops) */

    /* general views and nodes with several outputs (level 3). Views copy
     * nothing: the result walks a's memory under new strides (a strided
     * view of a strided a); dims may be negative, counting from the end. */
    KBV_OP_TRANSPOSE_DIMS,/* a.transpose(i[0], i[1]) of any rank */
    KBV_OP_PERMUTE,       /* a.permute(s): s the dims as a tuple, "(0, 2, 1, 3)" */
    KBV_OP_NARROW,        /* a.narrow(i[0], i[1], i[2]): dim, start (>= 0), length */
    KBV_OP_EXPAND,        /* a.expand(s): s the sizes as a tuple of integers and problem
                             dim names, -1 keeping a's size; broadcast dims read stride 0 */
    KBV_OP_CONTIGUOUS,    /* a.contiguous(): a itself when it is contiguous, else a copy */
    KBV_OP_RESHAPE,       /* a.reshape(s), s as for view: a view where a's strides allow
                             one (PyTorch's rule), else a contiguous copy */
    KBV_OP_SPLIT,         /* a.split(i[0], dim=i[1]): pieces of i[0] along the dim, the
                             last smaller; one output per piece, each a view */
    KBV_OP_CHUNK,         /* a.chunk(i[0], dim=i[1]): ceil(size / i[0]) per piece, as
                             PyTorch (fewer pieces than i[0] where that divides so) */
    /* (end of the general views) */
    /* the recurrent ops (level 3's RNN problems; graph/ops_rnn.c) */
    KBV_OP_SELECT,        /* a.select(i[0], i[1]) (x[t], out[:, -1, :]): a view without dim
                             i[0], at index i[1] (negative counts from the end) */
    KBV_OP_STACK,         /* torch.stack([a, b, ...], dim=i[0]): one operand or more, of one
                             shape */
    KBV_OP_ZEROS_STATE,   /* torch.zeros(i[0], a.size(i[1]), b.size(1), dtype=a.dtype,
                             device=a.device): an RNN's initial state of i[0] = layers x
                             directions, a (the input) giving the batch and dtype, b
                             (weight_hh_l0) the hidden size */
    /* nn.LSTM and nn.GRU as they call torch._VF.lstm/gru: operands x, h0 (and c0
     * for the LSTM), then per layer and direction (forward, then _reverse)
     * weight_ih [G*H, in], weight_hh [G*H, H], bias_ih [G*H], bias_hh [G*H],
     * PyTorch's _flat_weights order; G = 4 gates (i, f, g, o) or 3 (r, z, n).
     * i[0] chooses the result the node yields (the graph has one value per
     * node): 0 output [T, B, D*H] ([B, T, D*H] batch first), 1 h_n
     * [L*D, B, H], 2 c_n (LSTM). i[1] layers L, i[2] bidirectional (D = 2),
     * i[3] batch_first. No dropout; training mode, as KernelBench builds its
     * modules. */
    KBV_OP_LSTM,
    KBV_OP_GRU,
    /* (end of the recurrent ops) */
    /* the attention ops (level 3's MinGPT attention L3/43, 44, 50, multi-head
     * attention L3/31, the vision transformers L3/28, 32) */
    KBV_OP_MASKED_FILL,   /* a.masked_fill(b, f[0]): b a bool mask that broadcasts to a's
                             shape; where it is true the result holds f[0] (-inf included) */
    KBV_OP_EQ_SCALAR,     /* a == f[0]: a bool tensor of a's shape */
    /* (a[:, :, :seq_len, :seq_len] is KBV_OP_SLICE, among the Swin ops) */
    KBV_OP_UNFOLD,        /* a.unfold(i[0], i[1], i[2]): dim, size, step; the dim holds the
                             (n - size) / step + 1 windows and a last dim of `size` is added,
                             a view (ViT's patches, img.unfold(2, p, p).unfold(3, p, p)) */
    /* (end of the attention ops) */
    /* the Swin problems' ops (L3/29 Swin-MLP, L3/30 Swin V2; graph/ops_shifted.c) */
    KBV_OP_PAD,           /* F.pad(a, s, "constant", f[0]): s F.pad's list of (before, after)
                             pairs from the last dim backwards ("[0, 0, 4, 3, 4, 3]"), none
                             negative; a new contiguous tensor, as PyTorch allocates it */
    KBV_OP_SLICE,         /* a[s]: s the index between the brackets, start:stop:step per leading
                             dim (":, 0::2, 1::2, :", ":, :seq_len"), Python's rules, step > 0,
                             a stop an integer or a problem dim name; a view */
    KBV_OP_ROLL,          /* torch.roll(a, s): s "shifts=(-3, -3), dims=(1, 2)", each shift
                             wrapping modulo its dim's size; a new contiguous tensor */
    KBV_OP_INDEX,         /* a[b]: b a 1-D int64 index into a's dim 0 (advanced indexing, Swin
                             V2's relative_position_bias_table[index.view(-1)]): rows of a
                             gathered into a new tensor [len(b), a's other dims] */
    KBV_OP_ZEROS_LIKE,    /* torch.zeros_like(a) */
    /* (end of the Swin ops) */
    /* NetVLAD and Mamba-2 (L3/46-49) */
    KBV_OP_EXP,           /* torch.exp(a) */
    KBV_OP_NORMALIZE,     /* F.normalize(a, p=2.0, dim=i[0], eps=f[0]): a / clamp_min(2-norm
                             along the dim (keepdim), eps), as PyTorch computes it */
    KBV_OP_EINSUM_N,      /* torch.einsum(s, a, b, ...): one operand or more, any equation
                             without ellipses or repeated labels, contracted pairwise left to
                             right as aten does (graph/ops_einsum.h); einsum above is the
                             single-matmul case */
    KBV_OP_SEGSUM_MASK,   /* ~torch.tril(torch.ones(T, T, dtype=torch.bool, device=a.device),
                             diagonal=0), T = a.size(-1): Mamba-2's segsum mask, true strictly
                             above the diagonal */
    /* (end of the NetVLAD and Mamba-2 ops) */

    KBV_OP_COUNT
} kbv_op;

#endif
