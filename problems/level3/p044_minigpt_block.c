/* L3/44 44_MiniGPTBlock: minGPT's transformer block, x + attn(ln_1(x)) then
 * x + mlp(ln_2(x)) with NewGELU. */
#include "level3.h"

#include "attn_blocks.h"
#include "blocks.h"

kbv_status kbv_l3_044(kbv_builder *b)
{
    kbv_b_problem(b, 3, 44, "44_MiniGPTBlock",
                  "The attention is L3/43's (its buffer and mask as there). NewGELU is "
                  "KernelBench's expression, each of its eight operations a node, as PyTorch "
                  "eager allocates each temporary. Dropout has p = 0 (identity, no copy). "
                  "n_embd 768 and n_head 8 stay at the small size; the small size shrinks the "
                  "batch, the sequence and max_seqlen.");
    kbv_b_dim(b, "batch_size", 128, 2);
    kbv_b_dim(b, "max_seqlen", 1024, 11);
    kbv_b_dim(b, "seq_len", 512, 7);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,seq_len,768");
    const char *ln1 = l3_layer_norm(b, "ln_1", "x", "768");
    const char *att = l3_causal_self_attention(
        b, ln1,
        (l3_causal_attn){.prefix = "attn", .batch = "batch_size", .seq = "seq_len",
                         .max_seqlen = "max_seqlen", .n_embd = 768, .n_head = 8,
                         .project = true});
    const char *x1 = kbv_b_op2(b, KBV_OP_ADD, NULL, (kbv_b_attrs){0}, "x", att);
    const char *ln2 = l3_layer_norm(b, "ln_2", x1, "768");
    const char *h = l3_linear(b, "mlp.c_fc", ln2, "768", "3072", true);
    h = l3_new_gelu(b, h);
    h = l3_linear(b, "mlp.c_proj", h, "3072", "768", true);
    h = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, h);
    kbv_b_op2(b, KBV_OP_ADD, "out", (kbv_b_attrs){0}, x1, h);
    kbv_b_init_arg(b, "n_embd", "768");
    kbv_b_init_arg(b, "n_head", "8");
    kbv_b_init_arg(b, "attn_pdrop", "0.0");
    kbv_b_init_arg(b, "resid_pdrop", "0.0");
    kbv_b_init_arg(b, "max_seqlen", "max_seqlen");
    return kbv_b_status(b);
}
