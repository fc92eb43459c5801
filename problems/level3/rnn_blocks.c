/* Level-3 recurrent blocks on the problem builder (rnn_blocks.h). */
#include "rnn_blocks.h"

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
