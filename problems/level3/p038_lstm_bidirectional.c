/* L3/38 38_LSTMBidirectional: a 6-layer bidirectional nn.LSTM (batch_first) from
 * the given h0, c0 [12, batch, hidden], then fc on out[:, -1, :] [batch, 512]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_038(kbv_builder *b)
{
    kbv_b_problem(b, 3, 38, "38_LSTMBidirectional",
                  "layer_input_size is 2 x hidden_size, what layers 1 to 5 and fc read. The small "
                  "size shrinks the batch, the sequence and the widths; the six layers stay "
                  "(num_layers sets the params).");
    const l3_rnn lstm = l3_lstm_model(b, true, true);
    const char *out = l3_rnn_apply(b, lstm, "x", "h0", "c0", 0);
    const char *last = kbv_b_op1(b, KBV_OP_SELECT, "last", (kbv_b_attrs){.i = {1, -1}}, out);
    kbv_b_op3(b, KBV_OP_LINEAR, "out", (kbv_b_attrs){0}, last, "fc.weight", "fc.bias");
    return kbv_b_status(b);
}
