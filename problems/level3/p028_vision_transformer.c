/* L3/28 28_VisionTransformer: ViT with 16x16 patches from unfold, a class
 * token, learned positions, six nn.TransformerEncoderLayer (sequence first)
 * and an MLP head. */
#include "level3.h"

#include <stdio.h>

#include "attn_blocks.h"
#include "blocks.h"

kbv_status kbv_l3_028(kbv_builder *b)
{
    kbv_b_problem(b, 3, 28, "28_VisionTransformer",
                  "img.unfold(2, 16, 16).unfold(3, 16, 16) is a view and the reshape to [2, "
                  "-1, 768] a copy, as in PyTorch (the reshape mixes the channels into the "
                  "patch index, as the module does). The encoder layers are not batch-first, "
                  "so the [2, tokens, 512] input makes them attend over the batch axis of 2, "
                  "for each of the tokens. So the class token, the one the head reads, only "
                  "ever meets the other image's class token: both are cls_token + "
                  "pos_embedding[0], and the output does not depend on img (kbv audit: "
                  "degenerate, as KernelBench's module is). In training mode each layer's "
                  "attention is "
                  "F.multi_head_attention_forward's need_weights=False path, "
                  "scaled_dot_product_attention. nn.TransformerEncoder deep-copies one layer, "
                  "so the module's six layers start equal; kbv draws each param on its own "
                  "from the same initialiser. The small size is a 32x32 image (4 patches, 5 "
                  "tokens); the widths and the batch of 2 stay.");
    kbv_b_dim(b, "image_size", 224, 32);
    kbv_b_dim(b, "num_tokens", 197, 5);
    kbv_b_input(b, "img", KBV_GEN_RAND, "2,3,image_size,image_size");
    /* the model's own params first (state_dict order), then its children */
    kbv_b_param(b, "pos_embedding", KBV_INIT_RANDN, "1,num_tokens,512", false);
    kbv_b_param(b, "cls_token", KBV_INIT_RANDN, "1,1,512", false);
    l3_linear_params(b, "patch_to_embedding", "768", "512");
    const kbv_b_attrs none = {0};
    const char *x = kbv_b_op1(b, KBV_OP_UNFOLD, NULL, (kbv_b_attrs){.i = {2, 16, 16}}, "img");
    x = kbv_b_op1(b, KBV_OP_UNFOLD, NULL, (kbv_b_attrs){.i = {3, 16, 16}}, x);
    x = kbv_b_op1(b, KBV_OP_RESHAPE, NULL, (kbv_b_attrs){.s = "(size(0), -1, 768)"}, x);
    x = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, "patch_to_embedding.weight",
                  "patch_to_embedding.bias");
    const char *cls = kbv_b_op1(b, KBV_OP_EXPAND, NULL, (kbv_b_attrs){.s = "(2, -1, -1)"},
                                "cls_token");
    x = kbv_b_node(b, KBV_OP_CAT, NULL, (kbv_b_attrs){.i = {1}}, 2, (const char *const[]){cls, x});
    x = kbv_b_op2(b, KBV_OP_ADD, NULL, (kbv_b_attrs){.in_place = true}, x, "pos_embedding");
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, x);
    for (int l = 0; l < 6; l++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "transformer.layers.%d", l);
        x = l3_transformer_encoder_layer(
            b, x,
            (l3_encoder_layer){.prefix = prefix, .seq = "2", .batch = "num_tokens",
                               .embed = 512, .heads = 8, .ff = 2048});
    }
    x = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {1, 0}}, x);
    x = l3_linear(b, "mlp_head.0", x, "512", "2048", true);
    x = kbv_b_op1(b, KBV_OP_GELU, NULL, none, x);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, x);
    l3_linear(b, "mlp_head.3", x, "2048", "10", true);
    kbv_b_init_arg(b, "image_size", "image_size");
    kbv_b_init_arg(b, "patch_size", "16");
    kbv_b_init_arg(b, "num_classes", "10");
    kbv_b_init_arg(b, "dim", "512");
    kbv_b_init_arg(b, "depth", "6");
    kbv_b_init_arg(b, "heads", "8");
    kbv_b_init_arg(b, "mlp_dim", "2048");
    kbv_b_init_arg(b, "channels", "3");
    kbv_b_init_arg(b, "dropout", "0.0");
    kbv_b_init_arg(b, "emb_dropout", "0.0");
    return kbv_b_status(b);
}
