/* L3/41 41_GRUBidirectional: a 6-layer bidirectional nn.GRU (seq first) from the
 * given h0 [12, batch, hidden]; returns the output [seq_len, batch, 2 x hidden]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_041(kbv_builder *b)
{
    kbv_b_problem(b, 3, 41, "41_GRUBidirectional",
                  "KernelBench's __init__ also makes a self.h0 = torch.randn((num_layers * 2, "
                  "batch_size, hidden_size)) that forward() never reads (a plain attribute, not "
                  "in the state_dict); the graph has no such tensor. layer_input_size is 2 x "
                  "hidden_size, what layers 1 to 5 read. The small size shrinks the batch, the "
                  "sequence and the widths; the six layers stay (num_layers sets the params).");
    const l3_rnn gru = l3_gru_model(b, true);
    l3_rnn_apply(b, gru, "x", "h0", NULL, 0);
    return kbv_b_status(b);
}
