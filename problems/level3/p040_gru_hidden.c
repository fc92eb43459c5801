/* L3/40 40_GRUHidden: a 6-layer nn.GRU (seq first) from the given h0; returns
 * h_n [6, batch, hidden]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_040(kbv_builder *b)
{
    kbv_b_problem(b, 3, 40, "40_GRUHidden",
                  "The small size shrinks the batch, the sequence and the widths; the six layers "
                  "stay (num_layers sets the params).");
    const l3_rnn gru = l3_gru_model(b, false);
    l3_rnn_apply(b, gru, "x", "h0", NULL, 1);
    return kbv_b_status(b);
}
