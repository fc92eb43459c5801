/* L3/39 39_GRU: a 6-layer nn.GRU (seq first) from the given h0; returns the
 * output [seq_len, batch, hidden]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_039(kbv_builder *b)
{
    kbv_b_problem(b, 3, 39, "39_GRU",
                  "The small size shrinks the batch, the sequence and the widths; the six layers "
                  "stay (num_layers sets the params).");
    const l3_rnn gru = l3_gru_model(b, false);
    l3_rnn_apply(b, gru, "x", "h0", NULL, 0);
    return kbv_b_status(b);
}
