/* L3/33 33_VanillaRNN: one step of a vanilla RNN cell, hidden = tanh(i2h(cat((x,
 * initial_hidden), dim=1))), output = h2o(hidden). */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_033(kbv_builder *b)
{
    kbv_b_problem(b, 3, 33, "33_VanillaRNN",
                  "KernelBench's module keeps a self.hidden (torch.randn(batch_size, "
                  "hidden_size) made in __init__, a plain attribute, not a buffer), copies "
                  "initial_hidden into it, concatenates x with it and stores the new hidden "
                  "state back; get_inputs() always passes initial_hidden, so the output is "
                  "h2o(tanh(i2h(cat((x, initial_hidden), dim=1)))) and the graph reads "
                  "initial_hidden directly. What it leaves out is the module's state: the "
                  "16384-wide copy_ into self.hidden (a 16 MiB copy at the full size) and the "
                  "new hidden state kept alive after the call. combined_size is input_size + "
                  "hidden_size, i2h's in_features.");
    kbv_b_dim(b, "batch_size", 256, 3);
    kbv_b_dim(b, "input_size", 16384, 7);
    kbv_b_dim(b, "hidden_size", 16384, 5);
    kbv_b_dim(b, "output_size", 8192, 4);
    kbv_b_dim(b, "combined_size", 32768, 12);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,input_size");
    kbv_b_input(b, "initial_hidden", KBV_GEN_RAND, "batch_size,hidden_size");
    l3_vanilla_rnn_params(b, "hidden_size", "combined_size", "output_size");
    const char *hidden = "initial_hidden";
    l3_vanilla_rnn_step(b, "x", &hidden, 0);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "output_size", "output_size");
    return kbv_b_status(b);
}
