/* The blocks of the Swin models (L3/29 Swin-MLP, L3/30 Swin V2), on the
 * problem builder: params under the modules' state_dict names, in their
 * registration order, with PyTorch's default initialisers; nodes as the
 * modules' forward()s run them, view for view (window_partition and
 * window_reverse are view - permute - contiguous - view, each contiguous
 * the copy PyTorch makes). The image is fixed by the modules (224, patches
 * of 4: stages of 56, 28, 14 and 7 tokens a side), so every size is a
 * literal but the batch, the dim "batch_size". */
#ifndef KBV_LEVEL3_SWIN_BLOCKS_H
#define KBV_LEVEL3_SWIN_BLOCKS_H

#include <stdbool.h>

#include "graph/problem_builder.h"

/* One stage's shape: channels, tokens a side, heads, the window (already
 * min(resolution) where the resolution does not exceed it, as the blocks'
 * __init__ makes it). */
typedef struct swin_stage {
    int dim, res, heads, window;
} swin_stage;

/* nn.LayerNorm(dim)'s params (weight ones, bias zeros) named prefix, and
 * its application to x (eps 1e-5). */
void swin_layer_norm_params(kbv_builder *b, const char *prefix, int dim);
const char *swin_layer_norm(kbv_builder *b, const char *prefix, const char *x);

/* nn.Linear(in, out, bias)'s params named prefix, and its application. */
void swin_linear_params(kbv_builder *b, const char *prefix, int in, int out, bool bias);
const char *swin_linear(kbv_builder *b, const char *prefix, const char *x, bool bias);

/* PatchEmbed: conv 4x4 stride 4 (3 -> embed), flatten(2).transpose(1, 2),
 * then patch_embed.norm. x [B, 3, 224, 224] -> [B, 3136, embed]. */
const char *swin_patch_embed(kbv_builder *b, const char *x, int embed);

/* window_partition(x, ws).view(-1, ws * ws, C) of x [B, H, W, C] (H = W = side). */
const char *swin_window_partition(kbv_builder *b, const char *x, int side, int ws, int c);
/* window_reverse(windows, ws, side, side) of windows [-1, ws, ws, C]: [B, side, side, C]. */
const char *swin_window_reverse(kbv_builder *b, const char *windows, int side, int ws);

/* SwinMLPBlock named prefix over x [B, res * res, dim]: norm1, the shifted
 * window's zero pad (shift > 0), the heads' spatial MLP (a grouped conv1d
 * over each window's tokens), the pad cut away, the residual, then norm2 -
 * mlp (fc1 - GELU - fc2) and its residual. */
const char *swin_mlp_block(kbv_builder *b, const char *prefix, const char *x, swin_stage s,
                           int shift);

/* Swin V2's SwinTransformerBlock named prefix over x [B, res * res, dim]:
 * the cyclic shift (torch.roll by -shift, shift > 0, with the block's
 * attn_mask buffer), windows, WindowAttention (q/v biases, cosine attention
 * with the clamped exp logit scale, the continuous position bias: cpb_mlp of
 * relative_coords_table gathered by relative_position_index, 16 sigmoid),
 * the reverse shift, x + norm1(attention), then x + norm2(mlp(x)). */
const char *swin_v2_block(kbv_builder *b, const char *prefix, const char *x, swin_stage s,
                          int shift);

/* PatchMerging named prefix over x [B, res * res, dim]: the 2x2 gather
 * x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :], x[:, 0::2, 1::2, :],
 * x[:, 1::2, 1::2, :] cat along the channels, then Swin-MLP's norm(4 dim) -
 * reduction, or (norm_after, Swin V2) reduction - norm(2 dim). Params in
 * registration order: reduction, norm. */
const char *swin_patch_merging(kbv_builder *b, const char *prefix, const char *x, int res,
                               int dim, bool norm_after);

/* A Swin block named prefix over x (swin_mlp_block, swin_v2_block). */
typedef const char *(*swin_block_fn)(kbv_builder *b, const char *prefix, const char *x,
                                     swin_stage s, int shift);

/* The four stages of both models over the patch embedding x [B, 3136, 96]:
 * depths 2, 2, 6, 2 of block, 3, 6, 12, 24 heads, window 7 (the resolution
 * where that is smaller: no shift there), every other block shifted by half
 * the window; PatchMerging (norm_after as for swin_patch_merging) after the
 * first three. [B, 49, 768]. */
const char *swin_stages(kbv_builder *b, const char *x, swin_block_fn block, bool norm_after);

/* The head of both models: norm (num_features), avgpool over the tokens of
 * x.transpose(1, 2), flatten, head linear to 1000 classes. */
const char *swin_head(kbv_builder *b, const char *x, int features);

#endif
