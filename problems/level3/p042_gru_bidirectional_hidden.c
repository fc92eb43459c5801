/* L3/42 42_GRUBidirectionalHidden: a 6-layer bidirectional nn.GRU (seq first) from
 * the given h0 [12, batch, hidden]; returns h_n [12, batch, hidden]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_042(kbv_builder *b)
{
    kbv_b_problem(b, 3, 42, "42_GRUBidirectionalHidden",
                  "layer_input_size is 2 x hidden_size, what layers 1 to 5 read. The small size "
                  "shrinks the batch, the sequence and the widths; the six layers stay "
                  "(num_layers sets the params).");
    const l3_rnn gru = l3_gru_model(b, true);
    l3_rnn_apply(b, gru, "x", "h0", NULL, 1);
    return kbv_b_status(b);
}
