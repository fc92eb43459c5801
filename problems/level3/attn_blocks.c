/* Level-3 attention blocks on the problem builder (attn_blocks.h). */
#include "attn_blocks.h"

#include <math.h>
#include <stdio.h>

#include "blocks.h"

/* prefix.leaf, or leaf alone under the model itself (prefix ""). */
static const char *name_in(kbv_builder *b, const char *prefix, const char *leaf)
{
    return kbv_b_strf(b, "%s%s%s", prefix, *prefix ? "." : "", leaf);
}

const char *l3_layer_norm(kbv_builder *b, const char *prefix, const char *x, const char *n)
{
    const char *w = name_in(b, prefix, "weight"), *c = name_in(b, prefix, "bias");
    kbv_b_param(b, w, KBV_INIT_ONES, n, false);
    kbv_b_param(b, c, KBV_INIT_ZEROS, n, false);
    return kbv_b_op3(b, KBV_OP_LAYER_NORM, NULL, (kbv_b_attrs){.f = {1e-5}}, x, w, c);
}

const char *l3_new_gelu(kbv_builder *b, const char *x)
{
    /* Python evaluates 0.5 * x first, then the parenthesis inside out */
    const char *half = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL, (kbv_b_attrs){.f = {0.5}}, x);
    const char *cube = kbv_b_op1(b, KBV_OP_POW_SCALAR, NULL, (kbv_b_attrs){.f = {3.0}}, x);
    const char *scaled = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL, (kbv_b_attrs){.f = {0.044715}},
                                   cube);
    const char *inner = kbv_b_op2(b, KBV_OP_ADD, NULL, (kbv_b_attrs){0}, x, scaled);
    const char *arg = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL,
                                (kbv_b_attrs){.f = {sqrt(2.0 / M_PI)}}, inner);
    const char *th = kbv_b_op1(b, KBV_OP_TANH, NULL, (kbv_b_attrs){0}, arg);
    const char *one_plus = kbv_b_op1(b, KBV_OP_ADD_SCALAR, NULL, (kbv_b_attrs){.f = {1.0}}, th);
    return kbv_b_op2(b, KBV_OP_MUL, NULL, (kbv_b_attrs){0}, half, one_plus);
}

/* t.view(B, T, n_head, head).transpose(1, 2): [B, n_head, T, head]. */
static const char *heads_first(kbv_builder *b, const char *t, const l3_causal_attn *a, int head)
{
    const char *v = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                              (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %s, %d, %d)", a->batch,
                                                            a->seq, a->n_head, head)},
                              t);
    return kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, v);
}

const char *l3_causal_self_attention(kbv_builder *b, const char *x, l3_causal_attn a)
{
    if (a.n_head <= 0 || a.n_embd % a.n_head != 0) {
        kbv_b_fail(b, "causal attention: n_embd %d is not a multiple of n_head %d", a.n_embd,
                   a.n_head);
        return NULL;
    }
    const int head = a.n_embd / a.n_head;
    const char *c_attn = name_in(b, a.prefix, "c_attn"), *c_proj = name_in(b, a.prefix, "c_proj");
    const char *mask_buf = name_in(b, a.prefix, "bias");
    kbv_b_paramf(b, mask_buf, KBV_INIT_TRIL_ONES, true, "1,1,%s,%s", a.max_seqlen, a.max_seqlen);

    const char *embd = l3_size(b, a.n_embd), *embd3 = l3_size(b, 3 * a.n_embd);
    const char *qkv = l3_linear(b, c_attn, x, embd, embd3, true);
    const char *pieces[3] = {"q", "k", "v"};
    kbv_b_node_outs(b, KBV_OP_SPLIT, (kbv_b_attrs){.i = {a.n_embd, 2}}, qkv, 3, pieces);
    /* the module's order: k, q, v */
    const char *k = heads_first(b, pieces[1], &a, head);
    const char *q = heads_first(b, pieces[0], &a, head);
    const char *v = heads_first(b, pieces[2], &a, head);

    const char *kt = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {-2, -1}}, k);
    const char *scores = kbv_b_op2(b, KBV_OP_MATMUL, NULL, (kbv_b_attrs){0}, q, kt);
    const char *att = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL,
                                (kbv_b_attrs){.f = {1.0 / sqrt((double)head)}}, scores);
    const char *window = kbv_b_op1(
        b, KBV_OP_SLICE, NULL, (kbv_b_attrs){.s = kbv_b_strf(b, ":, :, :%s, :%s", a.seq, a.seq)},
        mask_buf);
    const char *future = kbv_b_op1(b, KBV_OP_EQ_SCALAR, NULL, (kbv_b_attrs){.f = {0.0}}, window);
    att = kbv_b_op2(b, KBV_OP_MASKED_FILL, NULL, (kbv_b_attrs){.f = {-INFINITY}}, att, future);
    if (a.relu) {
        att = kbv_b_op1(b, KBV_OP_RELU, NULL, (kbv_b_attrs){0}, att);
    } else {
        att = kbv_b_op1(b, KBV_OP_SOFTMAX, NULL, (kbv_b_attrs){.i = {-1}}, att);
        att = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, att);
    }
    const char *y = kbv_b_op2(b, KBV_OP_MATMUL, NULL, (kbv_b_attrs){0}, att, v);
    y = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 2}}, y);
    y = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, (kbv_b_attrs){0}, y);
    y = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %s, %d)", a.batch, a.seq, a.n_embd)}, y);
    if (!a.project) {
        l3_linear_params(b, c_proj, embd, embd);
        return y;
    }
    y = l3_linear(b, c_proj, y, embd, embd, true);
    return kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, y);
}

/* proj[j] of the packed projection, .view(seq, batch * heads, head)
 * .transpose(0, 1): [batch * heads, seq, head]. */
static const char *mha_piece(kbv_builder *b, const char *proj, int j, const l3_mha *m, int head)
{
    const char *t = kbv_b_op1(b, KBV_OP_SELECT, NULL, (kbv_b_attrs){.i = {0, j}}, proj);
    t = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, -1, %d)", m->seq, head)}, t);
    return kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {0, 1}}, t);
}

/* [batch * heads, seq, head] as .view(batch, heads, seq, head). */
static const char *mha_heads(kbv_builder *b, const char *t, const l3_mha *m, int head)
{
    return kbv_b_op1(b, KBV_OP_VIEW, NULL,
                     (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %d, %s, %d)", m->batch, m->heads,
                                                   m->seq, head)},
                     t);
}

void l3_mha_params(kbv_builder *b, const char *prefix, int embed)
{
    kbv_b_paramf(b, name_in(b, prefix, "in_proj_weight"), KBV_INIT_XAVIER_UNIFORM, false,
                 "%d,%d", 3 * embed, embed);
    kbv_b_paramf(b, name_in(b, prefix, "in_proj_bias"), KBV_INIT_ZEROS, false, "%d", 3 * embed);
    kbv_b_paramf(b, name_in(b, prefix, "out_proj.weight"), KBV_INIT_UNIFORM_FAN_IN, false,
                 "%d,%d", embed, embed);
    kbv_b_paramf(b, name_in(b, prefix, "out_proj.bias"), KBV_INIT_ZEROS, false, "%d", embed);
}

const char *l3_multihead_attention(kbv_builder *b, const char *x, l3_mha m)
{
    if (m.heads <= 0 || m.embed % m.heads != 0) {
        kbv_b_fail(b, "multi-head attention: embed %d is not a multiple of heads %d", m.embed,
                   m.heads);
        return NULL;
    }
    const int head = m.embed / m.heads;
    const char *w_in = name_in(b, m.prefix, "in_proj_weight");
    const char *b_in = name_in(b, m.prefix, "in_proj_bias");
    const char *w_out = name_in(b, m.prefix, "out_proj.weight");
    const char *b_out = name_in(b, m.prefix, "out_proj.bias");

    const kbv_b_attrs none = {0};
    const char *proj = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, w_in, b_in);
    proj = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                     (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %s, 3, %d)", m.seq, m.batch, m.embed)},
                     proj);
    proj = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {0}}, proj);
    proj = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {0, -2}}, proj);
    proj = kbv_b_op1(b, KBV_OP_SQUEEZE, NULL, (kbv_b_attrs){.i = {-2}}, proj);
    proj = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, proj);
    const char *q = mha_piece(b, proj, 0, &m, head);
    const char *k = mha_piece(b, proj, 1, &m, head);
    const char *v = mha_piece(b, proj, 2, &m, head);

    const char *weights = NULL, *o;
    if (m.need_weights) {
        const char *qs = kbv_b_op1(b, KBV_OP_MUL_SCALAR, NULL,
                                   (kbv_b_attrs){.f = {sqrt(1.0 / (double)head)}}, q);
        const char *kt = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {-2, -1}}, k);
        weights = kbv_b_op2(b, KBV_OP_BMM, NULL, none, qs, kt);
        weights = kbv_b_op1(b, KBV_OP_SOFTMAX, NULL, (kbv_b_attrs){.i = {-1}}, weights);
        o = kbv_b_op2(b, KBV_OP_BMM, NULL, none, weights, v);
        o = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {0, 1}}, o);
    } else {
        o = kbv_b_op3(b, KBV_OP_SDPA, NULL, none, mha_heads(b, q, &m, head),
                      mha_heads(b, k, &m, head), mha_heads(b, v, &m, head));
        o = kbv_b_op1(b, KBV_OP_PERMUTE, NULL, (kbv_b_attrs){.s = "(2, 0, 1, 3)"}, o);
    }
    o = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, o);
    o = kbv_b_op1(b, KBV_OP_VIEW, NULL, (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d)", m.embed)}, o);
    o = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, o, w_out, b_out);
    o = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                  (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %s, %d)", m.seq, m.batch, m.embed)}, o);
    if (weights) {
        /* the averaged weights, which the caller discards */
        weights = kbv_b_op1(b, KBV_OP_VIEW, NULL,
                            (kbv_b_attrs){.s = kbv_b_strf(b, "(%s, %d, %s, %s)", m.batch,
                                                          m.heads, m.seq, m.seq)},
                            weights);
        kbv_b_op1(b, KBV_OP_MEAN, NULL, (kbv_b_attrs){.i = {1, 0}}, weights);
    }
    return o;
}

/* F.layer_norm over the last dim with params prefix.weight, prefix.bias. */
static const char *layer_norm_of(kbv_builder *b, const char *prefix, const char *x)
{
    return kbv_b_op3(b, KBV_OP_LAYER_NORM, NULL, (kbv_b_attrs){.f = {1e-5}}, x,
                     name_in(b, prefix, "weight"), name_in(b, prefix, "bias"));
}

static const char *dropout0(kbv_builder *b, const char *x)
{
    return kbv_b_op1(b, KBV_OP_DROPOUT, NULL, (kbv_b_attrs){.f = {0.0}, .i = {1}}, x);
}

const char *l3_transformer_encoder_layer(kbv_builder *b, const char *x, l3_encoder_layer e)
{
    const char *sa = name_in(b, e.prefix, "self_attn");
    const char *lin1 = name_in(b, e.prefix, "linear1"), *lin2 = name_in(b, e.prefix, "linear2");
    const char *norm1 = name_in(b, e.prefix, "norm1"), *norm2 = name_in(b, e.prefix, "norm2");
    const char *embed = l3_size(b, e.embed), *ff = l3_size(b, e.ff);
    /* registration order: self_attn, linear1, linear2, norm1, norm2 */
    l3_mha_params(b, sa, e.embed);
    l3_linear_params(b, lin1, embed, ff);
    l3_linear_params(b, lin2, ff, embed);
    const char *const norms[2] = {norm1, norm2};
    for (int k = 0; k < 2; k++) {
        kbv_b_param(b, name_in(b, norms[k], "weight"), KBV_INIT_ONES, embed, false);
        kbv_b_param(b, name_in(b, norms[k], "bias"), KBV_INIT_ZEROS, embed, false);
    }
    const kbv_b_attrs none = {0};
    /* a batch-first module hands the attention x.transpose(1, 0) and
     * transposes its result back */
    const char *in = e.batch_first
                         ? kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 0}}, x)
                         : x;
    const char *att = l3_multihead_attention(
        b, in,
        (l3_mha){.prefix = sa, .seq = e.seq, .batch = e.batch, .embed = e.embed,
                 .heads = e.heads, .need_weights = false});
    if (e.batch_first)
        att = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, (kbv_b_attrs){.i = {1, 0}}, att);
    att = dropout0(b, att);
    const char *y = layer_norm_of(b, norm1, kbv_b_op2(b, KBV_OP_ADD, NULL, none, x, att));
    const char *h = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, y, name_in(b, lin1, "weight"),
                              name_in(b, lin1, "bias"));
    h = dropout0(b, kbv_b_op1(b, KBV_OP_RELU, NULL, none, h));
    h = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, h, name_in(b, lin2, "weight"),
                  name_in(b, lin2, "bias"));
    h = dropout0(b, h);
    return layer_norm_of(b, norm2, kbv_b_op2(b, KBV_OP_ADD, NULL, none, y, h));
}
