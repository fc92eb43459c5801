/* Level-3 recurrent blocks on the problem builder (rnn_blocks.h). */
#include "rnn_blocks.h"

#include "blocks.h"

#include <stdio.h>
#include <stdlib.h>

void l3_rnn_params(kbv_builder *b, l3_rnn m)
{
    static const char *const kinds[4] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
    int dirs = m.bidirectional ? 2 : 1;
    if (m.bidirectional && !m.layer_input_size) {
        kbv_b_fail(b, "%s: a bidirectional module needs its layer_input_size dim", m.prefix);
        return;
    }
    for (int l = 0; l < m.layers; l++)
        for (int d = 0; d < dirs; d++) {
            const char *in = l == 0 ? m.input : m.bidirectional ? m.layer_input_size : m.hidden;
            const char *cols[4] = {in, m.hidden, NULL, NULL};
            for (int w = 0; w < 4; w++) {
                char name[160];
                snprintf(name, sizeof name, "%s.%s_l%d%s", m.prefix, kinds[w], l,
                         d ? "_reverse" : "");
                if (cols[w])
                    kbv_b_paramf(b, name, KBV_INIT_UNIFORM_HIDDEN, false, "%s,%s", m.gate_size,
                                 cols[w]);
                else
                    kbv_b_paramf(b, name, KBV_INIT_UNIFORM_HIDDEN, false, "%s", m.gate_size);
            }
        }
}

const char *l3_rnn_apply(kbv_builder *b, l3_rnn m, const char *x, const char *h0,
                         const char *c0, int result)
{
    static const char *const kinds[4] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
    bool lstm = m.op == KBV_OP_LSTM;
    int dirs = m.bidirectional ? 2 : 1, states = lstm ? 2 : 1;
    int n = 1 + states + 4 * m.layers * dirs;
    const char **args = calloc((size_t)n, sizeof *args);
    if (!args) {
        kbv_b_fail(b, "%s: %d operands", m.prefix, n);
        return NULL;
    }
    int k = 0;
    args[k++] = x;
    args[k++] = h0;
    if (lstm)
        args[k++] = c0;
    for (int l = 0; l < m.layers; l++)
        for (int d = 0; d < dirs; d++)
            for (int w = 0; w < 4; w++)
                args[k++] = kbv_b_strf(b, "%s.%s_l%d%s", m.prefix, kinds[w], l,
                                       d ? "_reverse" : "");
    kbv_b_attrs a = {.i = {result, m.layers, m.bidirectional, m.batch_first}};
    const char *names[3] = {"output", "h_n", "c_n"};
    const char *out = kbv_b_node(b, m.op, result >= 0 && result < 3 ? names[result] : NULL, a,
                                 n, args);
    free(args);
    return out;
}

const char *l3_rnn_zero_state(kbv_builder *b, l3_rnn m, const char *x, const char *out)
{
    int dirs = m.bidirectional ? 2 : 1;
    kbv_b_attrs a = {.i = {m.layers * dirs, m.batch_first ? 0 : 1}};
    return kbv_b_op2(b, KBV_OP_ZEROS_STATE, out, a, x,
                     kbv_b_strf(b, "%s.weight_hh_l0", m.prefix));
}

/* The dims both model families share: batch 10, 128 features in, 256 hidden,
 * the gates' rows and, bidirectional, the next layer's 512 inputs. */
static void rnn_model_dims(kbv_builder *b, const char *seq, int gates, bool bidirectional)
{
    kbv_b_dim(b, "batch_size", 10, 3);
    kbv_b_dim(b, seq, 512, 5);
    kbv_b_dim(b, "input_size", 128, 7);
    kbv_b_dim(b, "hidden_size", 256, 6);
    kbv_b_dim(b, "gate_size", gates * 256, gates * 6);
    if (bidirectional)
        kbv_b_dim(b, "layer_input_size", 512, 12);
}

static void rnn_model_init_args(kbv_builder *b)
{
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "num_layers", "6");
}

l3_rnn l3_lstm_model(kbv_builder *b, bool bidirectional, bool given_state)
{
    rnn_model_dims(b, "sequence_length", 4, bidirectional);
    kbv_b_dim(b, "output_size", 10, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,sequence_length,input_size");
    if (given_state) {
        const char *state = bidirectional ? "12,batch_size,hidden_size" : "6,batch_size,hidden_size";
        kbv_b_input(b, "h0", KBV_GEN_RAND, state);
        kbv_b_input(b, "c0", KBV_GEN_RAND, state);
    }
    const l3_rnn lstm = {KBV_OP_LSTM, "lstm", "input_size", "hidden_size", "gate_size",
                         bidirectional ? "layer_input_size" : NULL, 6, bidirectional, true};
    l3_rnn_params(b, lstm);
    l3_linear_params(b, "fc", bidirectional ? "layer_input_size" : "hidden_size", "output_size");
    rnn_model_init_args(b);
    kbv_b_init_arg(b, "output_size", "output_size");
    kbv_b_init_arg(b, "dropout", "0.0");
    return lstm;
}

l3_rnn l3_gru_model(kbv_builder *b, bool bidirectional)
{
    rnn_model_dims(b, "seq_len", 3, bidirectional);
    kbv_b_input(b, "x", KBV_GEN_RAND, "seq_len,batch_size,input_size");
    kbv_b_input(b, "h0", KBV_GEN_RAND,
                bidirectional ? "12,batch_size,hidden_size" : "6,batch_size,hidden_size");
    const l3_rnn gru = {KBV_OP_GRU, "gru", "input_size", "hidden_size", "gate_size",
                        bidirectional ? "layer_input_size" : NULL, 6, bidirectional, false};
    l3_rnn_params(b, gru);
    rnn_model_init_args(b);
    return gru;
}

void l3_vanilla_rnn_params(kbv_builder *b, const char *hidden, const char *combined,
                           const char *output)
{
    kbv_b_paramf(b, "i2h.weight", KBV_INIT_UNIFORM_FAN_IN, false, "%s,%s", hidden, combined);
    kbv_b_paramf(b, "i2h.bias", KBV_INIT_UNIFORM_FAN_IN, false, "%s", hidden);
    kbv_b_paramf(b, "h2o.weight", KBV_INIT_UNIFORM_FAN_IN, false, "%s,%s", output, hidden);
    kbv_b_paramf(b, "h2o.bias", KBV_INIT_UNIFORM_FAN_IN, false, "%s", output);
}

const char *l3_vanilla_rnn_step(kbv_builder *b, const char *x, const char **hidden, int step)
{
    kbv_b_attrs none = {0}, dim1 = {.i = {1}};
    char name[64];
    snprintf(name, sizeof name, "combined_%d", step);
    const char *combined = kbv_b_op2(b, KBV_OP_CAT, name, dim1, x, *hidden);
    const char *pre = kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, combined, "i2h.weight", "i2h.bias");
    snprintf(name, sizeof name, "hidden_%d", step);
    *hidden = kbv_b_op1(b, KBV_OP_TANH, name, none, pre);
    snprintf(name, sizeof name, "output_%d", step);
    return kbv_b_op3(b, KBV_OP_LINEAR, name, none, *hidden, "h2o.weight", "h2o.bias");
}
