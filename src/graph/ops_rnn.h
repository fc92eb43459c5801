/* The recurrent ops' shapes (ops.h: select, stack, zeros_state, lstm, gru):
 * the table's shape rules and FLOP counts, and the sizes of an LSTM or GRU
 * node that both backends read from its operands. */
#ifndef KBV_OPS_RNN_H
#define KBV_OPS_RNN_H

#include <stdbool.h>

#include "graph/graph.h"

/* What an nn.LSTM / nn.GRU node computes, from its attributes and operands. */
typedef struct kbv_rnn_dims {
    bool is_lstm;
    int gates;          /* 4 (LSTM: i, f, g, o) or 3 (GRU: r, z, n) */
    int states;         /* operands after x: 2 (h0, c0) or 1 (h0) */
    int layers, dirs;   /* L, D */
    bool batch_first;
    int result;         /* 0 output, 1 h_n, 2 c_n */
    int64_t seq, batch, input, hidden;
} kbv_rnn_dims;

/* Operand index of layer l, direction d's weight w (0 weight_ih, 1
 * weight_hh, 2 bias_ih, 3 bias_hh). */
static inline int kbv_rnn_weight_arg(const kbv_rnn_dims *r, int l, int d, int w)
{
    return 1 + r->states + 4 * (l * r->dirs + d) + w;
}

/* The sizes of node n (op lstm or gru) with n_args operands, x of x_ndim dims
 * x_shape and hidden size `hidden` (weight_hh_l0's dim 1). Checks the
 * attributes and the operand count, not the other shapes (the shape rule
 * does). */
kbv_status kbv_rnn_dims_of(const kbv_node_def *n, int n_args, int x_ndim, const int64_t *x_shape,
                           int64_t hidden, kbv_rnn_dims *out);

kbv_status kbv_shape_select(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
kbv_status kbv_shape_stack(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
kbv_status kbv_shape_zeros_state(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out);
/* lstm and gru: every operand's shape checked against x and the weights. */
kbv_status kbv_shape_rnn(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
double kbv_flops_rnn(const kbv_graph *g, const kbv_node *n);

#endif
