/* L3/50 50_ReLUSelfAttention: minGPT's masked self-attention with F.relu in
 * place of the softmax and no output projection applied. */
#include "level3.h"

#include "attn_blocks.h"

kbv_status kbv_l3_050(kbv_builder *b)
{
    kbv_b_problem(b, 3, 50, "50_ReLUSelfAttention",
                  "As L3/43 with F.relu instead of the softmax and no dropout; c_proj is "
                  "defined (its params are in the state_dict) and never applied, as in the "
                  "module. The sequence is max_seqlen itself (get_inputs draws [batch, "
                  "max_seqlen, n_embd]), so the mask's slice is the whole buffer. n_embd 768 "
                  "and n_head 12 stay at the small size (the split size and the scale "
                  "1/sqrt(64) are constants of the graph).");
    kbv_b_dim(b, "batch_size", 16, 2);
    kbv_b_dim(b, "max_seqlen", 1024, 9);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,max_seqlen,768");
    l3_causal_self_attention(b, "x",
                             (l3_causal_attn){.prefix = "", .batch = "batch_size",
                                              .seq = "max_seqlen", .max_seqlen = "max_seqlen",
                                              .n_embd = 768, .n_head = 12, .relu = true});
    kbv_b_init_arg(b, "n_embd", "768");
    kbv_b_init_arg(b, "n_head", "12");
    kbv_b_init_arg(b, "max_seqlen", "max_seqlen");
    return kbv_b_status(b);
}
