/* L3/43 43_MinGPTCausalAttention: minGPT's multi-head masked self-attention
 * with its output projection. */
#include "level3.h"

#include "attn_blocks.h"

kbv_status kbv_l3_043(kbv_builder *b)
{
    kbv_b_problem(b, 3, 43, "43_MinGPTCausalAttention",
                  "The causal mask is the module's buffer bias = tril(ones(max_seqlen, "
                  "max_seqlen)), sliced [:, :, :T, :T] and compared with 0 in forward(), as "
                  "KernelBench does (a [1, 1, T, T] bool temporary). Dropout has p = 0 "
                  "(identity, no copy). n_embd 768 and n_head 8 stay at the small size: the "
                  "split size and the scale 1/sqrt(96) are constants of the graph; the small "
                  "size shrinks the batch, the sequence and max_seqlen.");
    kbv_b_dim(b, "batch_size", 128, 2);
    kbv_b_dim(b, "max_seqlen", 1024, 11);
    kbv_b_dim(b, "seq_len", 512, 7);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,seq_len,768");
    l3_causal_self_attention(b, "x",
                             (l3_causal_attn){.prefix = "", .batch = "batch_size",
                                              .seq = "seq_len", .max_seqlen = "max_seqlen",
                                              .n_embd = 768, .n_head = 8, .project = true});
    kbv_b_init_arg(b, "n_embd", "768");
    kbv_b_init_arg(b, "n_head", "8");
    kbv_b_init_arg(b, "attn_pdrop", "0.0");
    kbv_b_init_arg(b, "resid_pdrop", "0.0");
    kbv_b_init_arg(b, "max_seqlen", "max_seqlen");
    return kbv_b_status(b);
}
