/* L3/34 34_VanillaRNNHidden: the vanilla RNN cell over 256 steps of x [256,
 * batch_size, input_size], the Python loop unrolled: per step x[t] (a view),
 * cat with the hidden state, i2h, tanh, h2o; then torch.stack of the 256
 * outputs. */
#include "level3.h"

#include <stdio.h>

#include "rnn_blocks.h"

#define STEPS 256

kbv_status kbv_l3_034(kbv_builder *b)
{
    kbv_b_problem(b, 3, 34, "34_VanillaRNNHidden",
                  "forward() loops over x.size(0) = 256 steps in Python; the graph is that "
                  "loop unrolled, so the sequence length is the literal 256 at every size "
                  "(the small size shrinks the batch and the widths). Each step's output "
                  "stays alive until the stack, as the module's outputs list keeps them. "
                  "combined_size is input_size + hidden_size, i2h's in_features.");
    kbv_b_dim(b, "batch_size", 8, 3);
    kbv_b_dim(b, "input_size", 1024, 7);
    kbv_b_dim(b, "hidden_size", 256, 5);
    kbv_b_dim(b, "output_size", 128, 4);
    kbv_b_dim(b, "combined_size", 1280, 12);
    kbv_b_input(b, "x", KBV_GEN_RAND, "256,batch_size,input_size");
    kbv_b_input(b, "h0", KBV_GEN_RAND, "batch_size,hidden_size");
    l3_vanilla_rnn_params(b, "hidden_size", "combined_size", "output_size");
    const char *hidden = "h0";
    const char *outputs[STEPS];
    for (int t = 0; t < STEPS; t++) {
        char name[32];
        snprintf(name, sizeof name, "x_%d", t);
        const char *xt = kbv_b_op1(b, KBV_OP_SELECT, name, (kbv_b_attrs){.i = {0, t}}, "x");
        outputs[t] = l3_vanilla_rnn_step(b, xt, &hidden, t);
    }
    kbv_b_node(b, KBV_OP_STACK, "outputs", (kbv_b_attrs){.i = {0}}, STEPS, outputs);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_size", "hidden_size");
    kbv_b_init_arg(b, "output_size", "output_size");
    return kbv_b_status(b);
}
