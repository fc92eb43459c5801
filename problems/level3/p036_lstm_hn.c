/* L3/36 36_LSTMHn: a 6-layer nn.LSTM (batch_first) from the given h0, c0; returns
 * h_n (state[0]). */
#include "level3.h"

#include "blocks.h"
#include "rnn_blocks.h"

kbv_status kbv_l3_036(kbv_builder *b)
{
    kbv_b_problem(b, 3, 36, "36_LSTMHn",
                  "KernelBench's forward also computes fc(out[:, -1, :]) and drops it; a node "
                  "yields one value of the LSTM's three (ops.h), so the graph runs the LSTM once "
                  "for the returned state and leaves that dead fc out (a [batch, 256] x [256, 10] "
                  "product, against the LSTM's 6 x 512 steps). fc's params stay in the "
                  "state_dict. The small size shrinks the batch, the sequence and the widths; the "
                  "six layers stay (num_layers sets the params).");
    kbv_b_dim(b, "batch_size", 10, 3);
    kbv_b_dim(b, "sequence_length", 512, 5);
    kbv_b_dim(b, "input_size", 128, 7);
    kbv_b_dim(b, "hidden_size", 256, 6);
    kbv_b_dim(b, "gate_size", 1024, 24);
    kbv_b_dim(b, "output_size", 10, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,sequence_length,input_size");
    kbv_b_input(b, "h0", KBV_GEN_RAND, "6,batch_size,hidden_size");
    kbv_b_input(b, "c0", KBV_GEN_RAND, "6,batch_size,hidden_size");
    const l3_rnn lstm = {KBV_OP_LSTM, "lstm", "input_size", "hidden_size", "gate_size",
                        NULL, 6, false, true};
    l3_rnn_params(b, lstm);
    l3_linear_params(b, "fc", "hidden_size", "output_size");
    l3_rnn_apply(b, lstm, "x", "h0", "c0", 1);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "num_layers", "6");
    kbv_b_init_arg(b, "output_size", "output_size");
    kbv_b_init_arg(b, "dropout", "0.0");
    return kbv_b_status(b);
}
