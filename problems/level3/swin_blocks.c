/* Swin blocks on the problem builder (swin_blocks.h). */
#include "swin_blocks.h"

#include <math.h>
#include <stdio.h>

static const kbv_b_attrs none = {0};

static const char *view(kbv_builder *b, const char *x, const char *shape)
{
    return kbv_b_op1(b, KBV_OP_VIEW, NULL, (kbv_b_attrs){.s = shape}, x);
}

static const char *param_name(kbv_builder *b, const char *prefix, const char *leaf)
{
    return kbv_b_strf(b, "%s.%s", prefix, leaf);
}

void swin_layer_norm_params(kbv_builder *b, const char *prefix, int dim)
{
    kbv_b_paramf(b, param_name(b, prefix, "weight"), KBV_INIT_ONES, false, "%d", dim);
    kbv_b_paramf(b, param_name(b, prefix, "bias"), KBV_INIT_ZEROS, false, "%d", dim);
}

const char *swin_layer_norm(kbv_builder *b, const char *prefix, const char *x)
{
    return kbv_b_op3(b, KBV_OP_LAYER_NORM, NULL, (kbv_b_attrs){.f = {1e-5}}, x,
                     param_name(b, prefix, "weight"), param_name(b, prefix, "bias"));
}

void swin_linear_params(kbv_builder *b, const char *prefix, int in, int out, bool bias)
{
    kbv_b_paramf(b, param_name(b, prefix, "weight"), KBV_INIT_UNIFORM_FAN_IN, false, "%d,%d",
                 out, in);
    if (bias)
        kbv_b_paramf(b, param_name(b, prefix, "bias"), KBV_INIT_UNIFORM_FAN_IN, false, "%d",
                     out);
}

const char *swin_linear(kbv_builder *b, const char *prefix, const char *x, bool bias)
{
    const char *w = param_name(b, prefix, "weight");
    return bias ? kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, w, param_name(b, prefix, "bias"))
                : kbv_b_op2(b, KBV_OP_LINEAR, NULL, none, x, w);
}

const char *swin_patch_embed(kbv_builder *b, const char *x, int embed)
{
    kbv_b_paramf(b, "patch_embed.proj.weight", KBV_INIT_UNIFORM_FAN_IN, false, "%d,3,4,4", embed);
    kbv_b_paramf(b, "patch_embed.proj.bias", KBV_INIT_UNIFORM_FAN_IN, false, "%d", embed);
    swin_layer_norm_params(b, "patch_embed.norm", embed);
    x = kbv_b_op3(b, KBV_OP_CONV2D_BIAS, NULL, (kbv_b_attrs){.s = "stride=4"}, x,
                  "patch_embed.proj.weight", "patch_embed.proj.bias");
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, (kbv_b_attrs){.i = {2, -1}}, x);
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, x);
    return swin_layer_norm(b, "patch_embed.norm", x);
}

const char *swin_window_partition(kbv_builder *b, const char *x, int side, int ws, int c)
{
    int n = side / ws;
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d, %d, %d, %d)", n, ws, n, ws, c));
    x = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(0, 1, 3, 2, 4, 5)"}, x);
    x = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, x);
    x = view(b, x, kbv_b_strf(b, "(-1, %d, %d, %d)", ws, ws, c));
    return view(b, x, kbv_b_strf(b, "(-1, %d, %d)", ws * ws, c));
}

const char *swin_window_reverse(kbv_builder *b, const char *windows, int side, int ws)
{
    int n = side / ws;
    const char *x = view(b, windows, kbv_b_strf(b, "(batch_size, %d, %d, %d, %d, -1)", n, n, ws, ws));
    x = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(0, 1, 3, 2, 4, 5)"}, x);
    x = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, x);
    return view(b, x, kbv_b_strf(b, "(batch_size, %d, %d, -1)", side, side));
}

/* fc1 - GELU - fc2 of prefix.mlp (Dropout(0) is the identity). */
static const char *mlp(kbv_builder *b, const char *prefix, const char *x)
{
    x = swin_linear(b, param_name(b, prefix, "mlp.fc1"), x, true);
    x = kbv_b_op1(b, KBV_OP_GELU, NULL, none, x);
    return swin_linear(b, param_name(b, prefix, "mlp.fc2"), x, true);
}

static void mlp_params(kbv_builder *b, const char *prefix, int dim)
{
    swin_linear_params(b, param_name(b, prefix, "mlp.fc1"), dim, 4 * dim, true);
    swin_linear_params(b, param_name(b, prefix, "mlp.fc2"), 4 * dim, dim, true);
}

const char *swin_mlp_block(kbv_builder *b, const char *prefix, const char *x, swin_stage s,
                           int shift)
{
    const int ws = s.window, C = s.dim, nh = s.heads, hd = s.dim / s.heads;
    const char *norm1 = param_name(b, prefix, "norm1");
    const char *norm2 = param_name(b, prefix, "norm2");
    const char *conv_w = param_name(b, prefix, "spatial_mlp.weight");
    const char *conv_b = param_name(b, prefix, "spatial_mlp.bias");
    swin_layer_norm_params(b, norm1, C);
    kbv_b_paramf(b, conv_w, KBV_INIT_UNIFORM_FAN_IN, false, "%d,%d,1", nh * ws * ws, ws * ws);
    kbv_b_paramf(b, conv_b, KBV_INIT_UNIFORM_FAN_IN, false, "%d", nh * ws * ws);
    swin_layer_norm_params(b, norm2, C);
    mlp_params(b, prefix, C);

    const char *shortcut = x;
    x = swin_layer_norm(b, norm1, x);
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d, %d)", s.res, s.res, C));
    int side = s.res;
    if (shift > 0) {
        /* padding [P_l, P_r, P_t, P_b] = [ws - shift, shift, ws - shift, shift] */
        x = kbv_b_op1(b, KBV_OP_PAD, NULL,
                      (kbv_b_attrs){.s = kbv_b_strf(b, "[0, 0, %d, %d, %d, %d]", ws - shift,
                                                    shift, ws - shift, shift)},
                      x);
        side += ws;
    }
    x = swin_window_partition(b, x, side, ws, C);
    /* the heads' tokens: [nW*B, nh * ws*ws, C/nh] for the grouped conv1d */
    x = view(b, x, kbv_b_strf(b, "(-1, %d, %d, %d)", ws * ws, nh, hd));
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, x);
    x = kbv_b_op1(b, KBV_OP_RESHAPE, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d, %d)", nh * ws * ws, hd)}, x);
    x = kbv_b_op3(b, KBV_OP_CONV1D_BIAS, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "groups=%d", nh)}, x, conv_w, conv_b);
    x = view(b, x, kbv_b_strf(b, "(-1, %d, %d, %d)", nh, ws * ws, hd));
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, x);
    x = kbv_b_op1(b, KBV_OP_RESHAPE, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d, %d)", ws * ws, C)}, x);
    x = kbv_b_op1(b, KBV_OP_RESHAPE, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d, %d, %d)", ws, ws, C)}, x);
    x = swin_window_reverse(b, x, side, ws);
    if (shift > 0) {
        int top = ws - shift;
        x = kbv_b_op1(b, KBV_OP_SLICE, NULL,
                      (kbv_b_attrs){.s = kbv_b_strf(b, ":, %d:%d, %d:%d, :", top, -shift, top,
                                                    -shift)},
                      x);
        x = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, x);
    }
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d)", s.res * s.res, C));
    x = kbv_b_op2(b, KBV_OP_ADD, NULL, none, shortcut, x);
    const char *y = mlp(b, prefix, swin_layer_norm(b, norm2, x));
    return kbv_b_op2(b, KBV_OP_ADD, NULL, none, x, y);
}

/* WindowAttention of prefix.attn over windows [nW*B, N, C] (params declared
 * by the caller); mask the block's attn_mask or NULL. */
static const char *window_attention(kbv_builder *b, const char *prefix, const char *x,
                                    swin_stage s, const char *mask, int windows)
{
    const int ws = s.window, N = ws * ws, C = s.dim, nh = s.heads, hd = s.dim / s.heads;
#define ATTN(leaf) param_name(b, prefix, "attn." leaf)
    /* qkv_bias = cat((q_bias, zeros_like(v_bias), v_bias)) */
    const char *zeros = kbv_b_op1(b, KBV_OP_ZEROS_LIKE, NULL, none, ATTN("v_bias"));
    const char *parts[3] = {ATTN("q_bias"), zeros, ATTN("v_bias")};
    const char *qkv_bias = kbv_b_node(b, KBV_OP_CAT, NULL, (kbv_b_attrs){.i = {0}}, 3, parts);
    const char *qkv = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, ATTN("qkv.weight"), qkv_bias);
    qkv = kbv_b_op1(b, KBV_OP_RESHAPE, NULL,
                    (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d, 3, %d, %d)", N, nh, hd)}, qkv);
    qkv = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(2, 0, 3, 1, 4)"}, qkv);
    const char *q = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {0, 0}}, qkv);
    const char *k = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {0, 1}}, qkv);
    const char *v = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {0, 2}}, qkv);
    /* cosine attention */
    kbv_b_attrs unit = {.i = {-1}, .f = {1e-12}};
    q = kbv_b_op1(b, KBV_OP_NORMALIZE, NULL, unit, q);
    k = kbv_b_op1(b, KBV_OP_NORMALIZE, NULL, unit, k);
    k = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {-2, -1}}, k);
    const char *attn = kbv_b_op2(b, KBV_OP_MATMUL, NULL, none, q, k);
    const char *scale = kbv_b_op1(b, KBV_OP_CLAMP_MAX, NULL, (kbv_b_attrs){.f = {log(100.0)}},
                                  ATTN("logit_scale"));
    scale = kbv_b_op1(b, KBV_OP_EXP, NULL, none, scale);
    attn = kbv_b_op2(b, KBV_OP_MUL, NULL, none, attn, scale);
    /* the continuous position bias */
    const char *table = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, ATTN("relative_coords_table"),
                                  ATTN("cpb_mlp.0.weight"), ATTN("cpb_mlp.0.bias"));
    table = kbv_b_op1(b, KBV_OP_RELU, NULL, (kbv_b_attrs){.in_place = true}, table);
    table = kbv_b_op2(b, KBV_OP_LINEAR, NULL, none, table, ATTN("cpb_mlp.2.weight"));
    table = view(b, table, kbv_b_strf(b, "(-1, %d)", nh));
    const char *index = view(b, ATTN("relative_position_index"), "(-1,)");
    const char *bias = kbv_b_op2(b, KBV_OP_INDEX, NULL, none, table, index);
    bias = view(b, bias, kbv_b_strf(b, "(%d, %d, -1)", N, N));
    bias = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(2, 0, 1)"}, bias);
    bias = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, bias);
    bias = kbv_b_op1(b, KBV_OP_SIGMOID, NULL, none, bias);
    bias = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL, (kbv_b_attrs){.f = {16.0}}, bias);
    bias = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {0}}, bias);
    attn = kbv_b_op2(b, KBV_OP_ADD, NULL, none, attn, bias);
    if (mask) {
        attn = view(b, attn, kbv_b_strf(b, "(-1, %d, %d, %d, %d)", windows, nh, N, N));
        const char *m = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {1}}, mask);
        m = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {0}}, m);
        attn = kbv_b_op2(b, KBV_OP_ADD, NULL, none, attn, m);
        attn = view(b, attn, kbv_b_strf(b, "(-1, %d, %d, %d)", nh, N, N));
    }
    attn = kbv_b_op1(b, KBV_OP_SOFTMAX, NULL, (kbv_b_attrs){.i = {-1}}, attn);
    x = kbv_b_op2(b, KBV_OP_MATMUL, NULL, none, attn, v);
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, x);
    x = kbv_b_op1(b, KBV_OP_RESHAPE, NULL, (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d, %d)", N, C)},
                  x);
    return swin_linear(b, param_name(b, prefix, "attn.proj"), x, true);
#undef ATTN
}

const char *swin_v2_block(kbv_builder *b, const char *prefix, const char *x, swin_stage s,
                          int shift)
{
    const int ws = s.window, N = ws * ws, C = s.dim, nh = s.heads;
    const int windows = (s.res / ws) * (s.res / ws);
    const char *mask = NULL;
    if (shift > 0) {
        mask = param_name(b, prefix, "attn_mask");
        kbv_b_paramf(b, mask, KBV_INIT_SWIN_ATTN_MASK, true, "%d,%d,%d", windows, N, N);
        kbv_b_param_value(b, shift);
    }
    const char *norm1 = param_name(b, prefix, "norm1");
    const char *norm2 = param_name(b, prefix, "norm2");
    swin_layer_norm_params(b, norm1, C);
    kbv_b_paramf(b, param_name(b, prefix, "attn.logit_scale"), KBV_INIT_CONST, false, "%d,1,1",
                 nh);
    kbv_b_param_value(b, log(10.0));
    kbv_b_paramf(b, param_name(b, prefix, "attn.q_bias"), KBV_INIT_ZEROS, false, "%d", C);
    kbv_b_paramf(b, param_name(b, prefix, "attn.v_bias"), KBV_INIT_ZEROS, false, "%d", C);
    kbv_b_paramf(b, param_name(b, prefix, "attn.relative_coords_table"),
                 KBV_INIT_SWIN_COORDS_TABLE, true, "1,%d,%d,2", 2 * ws - 1, 2 * ws - 1);
    kbv_b_paramf(b, param_name(b, prefix, "attn.relative_position_index"),
                 KBV_INIT_SWIN_POSITION_INDEX, true, "%d,%d", N, N);
    kbv_b_param_dtype(b, KBV_I64);
    swin_linear_params(b, param_name(b, prefix, "attn.cpb_mlp.0"), 2, 512, true);
    swin_linear_params(b, param_name(b, prefix, "attn.cpb_mlp.2"), 512, nh, false);
    swin_linear_params(b, param_name(b, prefix, "attn.qkv"), C, 3 * C, false);
    swin_linear_params(b, param_name(b, prefix, "attn.proj"), C, C, true);
    swin_layer_norm_params(b, norm2, C);
    mlp_params(b, prefix, C);

    const char *shortcut = x;
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d, %d)", s.res, s.res, C));
    if (shift > 0)
        x = kbv_b_op1(b, KBV_OP_ROLL, NULL,
                      (kbv_b_attrs){.s = kbv_b_strf(b, "shifts=(%d, %d), dims=(1, 2)", -shift,
                                                    -shift)},
                      x);
    x = swin_window_partition(b, x, s.res, ws, C);
    x = window_attention(b, prefix, x, s, mask, windows);
    x = view(b, x, kbv_b_strf(b, "(-1, %d, %d, %d)", ws, ws, C));
    x = swin_window_reverse(b, x, s.res, ws);
    if (shift > 0)
        x = kbv_b_op1(b, KBV_OP_ROLL, NULL,
                      (kbv_b_attrs){.s = kbv_b_strf(b, "shifts=(%d, %d), dims=(1, 2)", shift,
                                                    shift)},
                      x);
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d)", s.res * s.res, C));
    x = kbv_b_op2(b, KBV_OP_ADD, NULL, none, shortcut, swin_layer_norm(b, norm1, x));
    const char *y = swin_layer_norm(b, norm2, mlp(b, prefix, x));
    return kbv_b_op2(b, KBV_OP_ADD, NULL, none, x, y);
}

const char *swin_patch_merging(kbv_builder *b, const char *prefix, const char *x, int res,
                               int dim, bool norm_after)
{
    const char *reduction = param_name(b, prefix, "reduction");
    const char *norm = param_name(b, prefix, "norm");
    swin_linear_params(b, reduction, 4 * dim, 2 * dim, false);
    swin_layer_norm_params(b, norm, norm_after ? 2 * dim : 4 * dim);
    x = view(b, x, kbv_b_strf(b, "(batch_size, %d, %d, %d)", res, res, dim));
    static const char *const gathers[4] = {":, 0::2, 0::2, :", ":, 1::2, 0::2, :",
                                           ":, 0::2, 1::2, :", ":, 1::2, 1::2, :"};
    const char *parts[4];
    for (int k = 0; k < 4; k++)
        parts[k] = kbv_b_op1(b, KBV_OP_SLICE, NULL, (kbv_b_attrs){.s = gathers[k]}, x);
    x = kbv_b_node(b, KBV_OP_CAT, NULL, (kbv_b_attrs){.i = {-1}}, 4, parts);
    x = view(b, x, kbv_b_strf(b, "(batch_size, -1, %d)", 4 * dim));
    if (norm_after)
        return swin_layer_norm(b, norm, swin_linear(b, reduction, x, false));
    return swin_linear(b, reduction, swin_layer_norm(b, norm, x), false);
}

const char *swin_stages(kbv_builder *b, const char *x, swin_block_fn block, bool norm_after)
{
    static const int depths[4] = {2, 2, 6, 2};
    char prefix[64];
    for (int i = 0; i < 4; i++) {
        swin_stage s = {.dim = 96 << i, .res = 56 >> i, .heads = 3 << i, .window = 7};
        bool whole = s.res <= s.window; /* the block's __init__: no shift (nor partition) */
        if (whole)
            s.window = s.res;
        for (int k = 0; k < depths[i]; k++) {
            snprintf(prefix, sizeof prefix, "layers.%d.blocks.%d", i, k);
            x = block(b, prefix, x, s, whole || k % 2 == 0 ? 0 : s.window / 2);
        }
        if (i < 3) {
            snprintf(prefix, sizeof prefix, "layers.%d.downsample", i);
            x = swin_patch_merging(b, prefix, x, s.res, s.dim, norm_after);
        }
    }
    return x;
}

const char *swin_head(kbv_builder *b, const char *x, int features)
{
    swin_layer_norm_params(b, "norm", features);
    swin_linear_params(b, "head", features, 1000, true);
    x = swin_layer_norm(b, "norm", x);
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, x);
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL1D, NULL, (kbv_b_attrs){.s = "output_size=1"}, x);
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, (kbv_b_attrs){.i = {1, -1}}, x);
    return swin_linear(b, "head", x, true);
}
