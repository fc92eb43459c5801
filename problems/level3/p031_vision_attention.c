/* L3/31 31_VisionAttention: nn.MultiheadAttention over the pixels of an
 * image (sequence first), a residual and a LayerNorm. */
#include "level3.h"

#include "attn_blocks.h"

kbv_status kbv_l3_031(kbv_builder *b)
{
    kbv_b_problem(b, 3, 31, "31_VisionAttention",
                  "nn.MultiheadAttention(128, 4) in training mode (dropout 0) as PyTorch 2.x's "
                  "F.multi_head_attention_forward runs it with need_weights=True: the packed "
                  "in-projection and its contiguous copy, q scaled by sqrt(1/32), bmm, softmax, "
                  "bmm, out_proj, and the head-averaged weights [batch, seq, seq], which the "
                  "module computes and the model drops; they count in the peak, as the "
                  "[batch * heads, seq, seq] weights they are averaged from do (8.6 GB in "
                  "float32 at 16384 pixels). seq_len is image_height * image_width (a dim of "
                  "its own: a shape entry is a name or a literal). The small size shrinks the "
                  "image; the batch of 2 and the widths stay.");
    kbv_b_dim(b, "batch_size", 2, 2);
    kbv_b_dim(b, "image_height", 128, 5);
    kbv_b_dim(b, "image_width", 128, 7);
    kbv_b_dim(b, "seq_len", 128 * 128, 35);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,128,image_height,image_width");
    const kbv_b_attrs none = {0};
    const char *t = kbv_b_op1(b, KBV_OP_VIEW, NULL, (kbv_b_attrs){.s = "(batch_size, 128, seq_len)"},
                              "x");
    const char *seq = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(2, 0, 1)"}, t);
    l3_mha_params(b, "attn", 128);
    const char *att = l3_multihead_attention(
        b, seq,
        (l3_mha){.prefix = "attn", .seq = "seq_len", .batch = "batch_size", .embed = 128,
                 .heads = 4, .need_weights = true});
    const char *y = kbv_b_op2(b, KBV_OP_ADD, NULL, none, att, seq);
    kbv_b_param(b, "norm.weight", KBV_INIT_ONES, "128", false);
    kbv_b_param(b, "norm.bias", KBV_INIT_ZEROS, "128", false);
    y = kbv_b_op3(b, KBV_OP_LAYER_NORM, NULL, (kbv_b_attrs){.f = {1e-5}}, y, "norm.weight",
                  "norm.bias");
    y = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(1, 2, 0)"}, y);
    kbv_b_op1(b, KBV_OP_VIEW, "out",
              (kbv_b_attrs){.s = "(batch_size, 128, image_height, image_width)"}, y);
    kbv_b_output(b, "out");
    kbv_b_init_arg(b, "embed_dim", "128");
    kbv_b_init_arg(b, "num_heads", "4");
    return kbv_b_status(b);
}
