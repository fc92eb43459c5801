/* L3/32 32_ConvolutionalVisionTransformer: a 4x4 strided conv as the patch
 * embedding, one linear to a token, a class token and six batch-first
 * nn.TransformerEncoderLayer. */
#include "level3.h"

#include <stdio.h>

#include "attn_blocks.h"
#include "blocks.h"

kbv_status kbv_l3_032(kbv_builder *b)
{
    kbv_b_problem(b, 3, 32, "32_ConvolutionalVisionTransformer",
                  "The sequence is two tokens (the class token and the projected image). "
                  "The encoder layers are batch-first: each hands its attention "
                  "x.transpose(1, 0) and transposes the result back, as nn.MultiheadAttention "
                  "does; in training mode the attention is F.multi_head_attention_forward's "
                  "need_weights=False path, scaled_dot_product_attention. The module's "
                  "constructor fixes the image at 32x32 (linear_proj takes 128 * 8 * 8 "
                  "features), so the small size shrinks the batch and the class count only.");
    kbv_b_dim(b, "batch_size", 10, 3);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,32,32");
    kbv_b_param(b, "cls_token", KBV_INIT_ZEROS, "1,1,128", false);
    const char *x = l3_conv2d(b, "conv1", "x",
                              (l3_conv){.cin = 3, .cout = 128, .k = 4, .stride = 4, .bias = true});
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, (kbv_b_attrs){.i = {1, -1}}, x);
    x = l3_linear(b, "linear_proj", x, "8192", "128", true);
    const char *cls = kbv_b_op1(b, KBV_OP_EXPAND, NULL,
                                (kbv_b_attrs){.s = "(batch_size, -1, -1)"}, "cls_token");
    x = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {1}}, x);
    x = kbv_b_node(b, KBV_OP_CAT, NULL, (kbv_b_attrs){.i = {1}}, 2, (const char *const[]){cls, x});
    for (int l = 0; l < 6; l++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "transformer_layers.%d", l);
        x = l3_transformer_encoder_layer(
            b, x,
            (l3_encoder_layer){.prefix = prefix, .seq = "2", .batch = "batch_size",
                               .embed = 128, .heads = 4, .ff = 512, .batch_first = true});
    }
    x = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {1, 0}}, x);
    l3_linear(b, "fc_out", x, "128", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    kbv_b_init_arg(b, "embed_dim", "128");
    kbv_b_init_arg(b, "num_heads", "4");
    return kbv_b_status(b);
}
