/* L3/39 39_GRU: a 6-layer nn.GRU (seq first) from the given h0; returns the
 * output [seq_len, batch, hidden]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_039(kbv_builder *b)
{
    kbv_b_problem(b, 3, 39, "39_GRU",
                  "The small size shrinks the batch, the sequence and the widths; the six layers "
                  "stay (num_layers sets the params).");
    kbv_b_dim(b, "batch_size", 10, 3);
    kbv_b_dim(b, "seq_len", 512, 5);
    kbv_b_dim(b, "input_size", 128, 7);
    kbv_b_dim(b, "hidden_size", 256, 6);
    kbv_b_dim(b, "gate_size", 768, 18);
    kbv_b_input(b, "x", KBV_GEN_RAND, "seq_len,batch_size,input_size");
    kbv_b_input(b, "h0", KBV_GEN_RAND, "6,batch_size,hidden_size");
    const l3_rnn gru = {KBV_OP_GRU, "gru", "input_size", "hidden_size", "gate_size",
                       NULL, 6, false, false};
    l3_rnn_params(b, gru);
    l3_rnn_apply(b, gru, "x", "h0", NULL, 0);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "num_layers", "6");
    return kbv_b_status(b);
}
