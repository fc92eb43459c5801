/* The recurrent blocks of level 3 (L3/33-42), on the problem builder:
 * nn.LSTM and nn.GRU with PyTorch's state_dict names and initialisation,
 * their default zero states, and a vanilla RNN cell step. Sizes are shape
 * entries (dim names or literals), as in blocks.h. */
#ifndef KBV_LEVEL3_RNN_BLOCKS_H
#define KBV_LEVEL3_RNN_BLOCKS_H

#include <stdbool.h>

#include "graph/problem_builder.h"

/* nn.LSTM / nn.GRU(input, hidden, layers, bias=True, batch_first,
 * bidirectional) named prefix ("lstm"). A shape entry is a name or a
 * literal, never an expression, so the problem declares the products as
 * dims, under nn.RNNBase's own names: gate_size (4 or 3 x hidden) and, when
 * bidirectional, layer_input_size (2 x hidden, what layers 1... read). */
typedef struct l3_rnn {
    kbv_op op;              /* KBV_OP_LSTM or KBV_OP_GRU */
    const char *prefix;
    const char *input, *hidden, *gate_size, *layer_input_size;
    int layers;
    bool bidirectional, batch_first;
} l3_rnn;

/* The module's params, in its registration order: per layer and direction
 * (forward, then _reverse) weight_ih_lK, weight_hh_lK, bias_ih_lK,
 * bias_hh_lK, all U(-1/sqrt(hidden), 1/sqrt(hidden)). */
void l3_rnn_params(kbv_builder *b, l3_rnn m);

/* The module applied to x with initial states h0 (and c0 for the LSTM;
 * NULL for the GRU), yielding `result`: 0 output, 1 h_n, 2 c_n (ops.h). */
const char *l3_rnn_apply(kbv_builder *b, l3_rnn m, const char *x, const char *h0,
                         const char *c0, int result);

/* torch.zeros(layers * directions, batch, hidden) for module m on x: the
 * state nn.LSTM/nn.GRU would start from without one. */
const char *l3_rnn_zero_state(kbv_builder *b, l3_rnn m, const char *x, const char *out);

/* KernelBench's vanilla RNN cell: i2h = nn.Linear(combined, hidden) (combined
 * = input + hidden, a dim of its own) and h2o = nn.Linear(hidden, output),
 * their params declared once by l3_vanilla_rnn_params; one step is hidden =
 * tanh(i2h(cat((x, hidden), dim=1))), output = h2o(hidden). The
 * step's values are named after step (combined_S, hidden_S, output_S);
 * *hidden is updated. Returns the output. */
/* KernelBench's 6-layer LSTM models (L3/35-38), up to the LSTM's node:
 * their dims (catalog and small sizes), the input x [batch, seq, 128]
 * (batch_first), h0 and c0 [6 or 12, batch, 256] when the model is given
 * them (else none: the caller makes zero states), the LSTM's and fc's
 * params (fc reads the last step's 256 or, bidirectional, 512 features) and
 * the constructor's arguments. Returns the LSTM for l3_rnn_apply. */
l3_rnn l3_lstm_model(kbv_builder *b, bool bidirectional, bool given_state);

/* KernelBench's 6-layer GRU models (L3/39-42), likewise: x [seq, batch,
 * 128] (seq-first), h0 [6 or 12, batch, 256], the GRU's params, the
 * constructor's arguments. */
l3_rnn l3_gru_model(kbv_builder *b, bool bidirectional);

void l3_vanilla_rnn_params(kbv_builder *b, const char *hidden, const char *combined,
                           const char *output);
const char *l3_vanilla_rnn_step(kbv_builder *b, const char *x, const char **hidden, int step);

#endif
