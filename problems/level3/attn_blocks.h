/* The attention blocks of level 3 (L3/28, 31, 32, 43, 44, 50), on the
 * problem builder: PyTorch's state_dict names and initialisation, each op
 * as PyTorch eager runs it (one node per temporary it allocates). Sizes are
 * shape entries (dim names or literals), as in blocks.h. */
#ifndef KBV_LEVEL3_ATTN_BLOCKS_H
#define KBV_LEVEL3_ATTN_BLOCKS_H

#include <stdbool.h>

#include "graph/problem_builder.h"

/* nn.LayerNorm(n) named prefix (weight ones, bias zeros, eps 1e-5) on x. */
const char *l3_layer_norm(kbv_builder *b, const char *prefix, const char *x, const char *n);

/* MinGPT's NewGELU as KernelBench writes it, one node per temporary:
 * 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 *
 * torch.pow(x, 3.0)))). */
const char *l3_new_gelu(kbv_builder *b, const char *x);

/* MinGPT's CausalSelfAttention named prefix ("" for the model itself) on x
 * [batch, seq, n_embd]: its buffer `bias` = tril(ones(max_seqlen,
 * max_seqlen)).view(1, 1, ...), then c_attn and c_proj (the state_dict's
 * order: a module's own buffers before its children). q, k, v from
 * c_attn(x).split(n_embd, dim=2), each .view(B, T, n_head, head).transpose(1,
 * 2); att = (q @ k.transpose(-2, -1)) * (1 / sqrt(head)), masked_fill with
 * -inf where bias[:, :, :T, :T] == 0, softmax over the last dim (relu: F.relu
 * instead, L3/50), dropout(p = 0); y = att @ v, transposed back,
 * .contiguous().view(B, T, n_embd). With project, c_proj and its dropout
 * follow; without (L3/50), c_proj is defined and never applied. n_embd and
 * n_head are literals: split sizes and the scale are constants of the
 * graph, so they are the same at every size. */
typedef struct l3_causal_attn {
    const char *prefix;
    const char *batch, *seq, *max_seqlen;   /* dim names */
    int n_embd, n_head;
    bool relu;      /* F.relu instead of softmax, no dropout (L3/50) */
    bool project;   /* c_proj and resid_dropout applied */
} l3_causal_attn;
const char *l3_causal_self_attention(kbv_builder *b, const char *x, l3_causal_attn a);

/* nn.MultiheadAttention(embed, heads) named prefix, self-attention on x
 * [seq, batch, embed] (batch_first=False; a batch-first caller transposes,
 * as the module does), in training mode with dropout 0, decomposed as
 * PyTorch 2.x's F.multi_head_attention_forward runs it. Params
 * in_proj_weight (xavier_uniform_), in_proj_bias (zeros), out_proj.weight
 * (Linear's init), out_proj.bias (zeros). The packed in-projection is
 * linear, unflatten(-1, (3, embed)).unsqueeze(0).transpose(0, -2)
 * .squeeze(-2).contiguous() and proj[0], proj[1], proj[2]; each of q, k, v
 * .view(seq, batch * heads, head).transpose(0, 1). need_weights: q scaled
 * by sqrt(1 / head), bmm with k^T, softmax, bmm with v, and after the
 * out-projection the weights .view(batch, heads, seq, seq).mean(dim=1),
 * computed and dropped, as the module returns them to a caller that
 * discards them; else (TransformerEncoderLayer's need_weights=False) q, k, v
 * .view(batch, heads, seq, head) into scaled_dot_product_attention and the
 * result .permute(2, 0, 1, 3). Either way the output .contiguous()
 * .view(-1, embed), out_proj, .view(seq, batch, embed). embed and heads are
 * literals (the head scale is a constant of the graph). */
typedef struct l3_mha {
    const char *prefix;
    const char *seq, *batch;   /* dim names */
    int embed, heads;
    bool need_weights;
} l3_mha;
const char *l3_multihead_attention(kbv_builder *b, const char *x, l3_mha m);
/* Its params, declared apart (a module around it registers them where its
 * own order puts them). */
void l3_mha_params(kbv_builder *b, const char *prefix, int embed);

/* nn.TransformerEncoderLayer(embed, heads, ff, dropout=0.0, activation relu,
 * post-norm, batch_first) named prefix, in training mode as PyTorch 2.x runs
 * it there (no fast path): x = norm1(x + dropout1(self_attn(x, x, x,
 * need_weights=False)[0])), then x = norm2(x + dropout2(linear2(dropout(
 * relu(linear1(x)))))). Params in registration order: self_attn, linear1,
 * linear2, norm1, norm2. seq and batch name the attention's axes: for a
 * batch-first layer x is [batch, seq, embed], else [seq, batch, embed]. */
typedef struct l3_encoder_layer {
    const char *prefix;
    const char *seq, *batch;
    int embed, heads, ff;
    bool batch_first;
} l3_encoder_layer;
const char *l3_transformer_encoder_layer(kbv_builder *b, const char *x, l3_encoder_layer e);

#endif
