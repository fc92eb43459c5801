/* L3/38 38_LSTMBidirectional: a 6-layer bidirectional nn.LSTM (batch_first) from
 * the given h0, c0 [12, batch, hidden], then fc on out[:, -1, :] [batch, 512]. */
#include "level3.h"

#include "blocks.h"
#include "rnn_blocks.h"

kbv_status kbv_l3_038(kbv_builder *b)
{
    kbv_b_problem(b, 3, 38, "38_LSTMBidirectional",
                  "layer_input_size is 2 x hidden_size, what layers 1 to 5 and fc read. The small "
                  "size shrinks the batch, the sequence and the widths; the six layers stay "
                  "(num_layers sets the params).");
    kbv_b_dim(b, "batch_size", 10, 3);
    kbv_b_dim(b, "sequence_length", 512, 5);
    kbv_b_dim(b, "input_size", 128, 7);
    kbv_b_dim(b, "hidden_size", 256, 6);
    kbv_b_dim(b, "gate_size", 1024, 24);
    kbv_b_dim(b, "layer_input_size", 512, 12);
    kbv_b_dim(b, "output_size", 10, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,sequence_length,input_size");
    kbv_b_input(b, "h0", KBV_GEN_RAND, "12,batch_size,hidden_size");
    kbv_b_input(b, "c0", KBV_GEN_RAND, "12,batch_size,hidden_size");
    const l3_rnn lstm = {KBV_OP_LSTM, "lstm", "input_size", "hidden_size", "gate_size",
                        "layer_input_size", 6, true, true};
    l3_rnn_params(b, lstm);
    l3_linear_params(b, "fc", "layer_input_size", "output_size");
    const char *out = l3_rnn_apply(b, lstm, "x", "h0", "c0", 0);
    const char *last = kbv_b_op1(b, KBV_OP_SELECT, "last", (kbv_b_attrs){.i = {1, -1}}, out);
    kbv_b_op3(b, KBV_OP_LINEAR, "out", (kbv_b_attrs){0}, last, "fc.weight", "fc.bias");
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "num_layers", "6");
    kbv_b_init_arg(b, "output_size", "output_size");
    kbv_b_init_arg(b, "dropout", "0.0");
    return kbv_b_status(b);
}
