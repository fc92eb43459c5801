/* L3/3 3_DeepNarrowMLP: Linear(8192, 1024), ReLU, 15 x [Linear(1024, 1024), ReLU],
 * Linear(1024, 8192) over x [batch_size, input_size]: 17 Linear layers. */
#include "level3.h"

#include "blocks.h"

#define HIDDEN_LAYERS 16

kbv_status kbv_l3_003(kbv_builder *b)
{
    kbv_b_problem(b, 3, 3, "3_DeepNarrowMLP",
                  "hidden_layer_sizes = [1024] * 16: 17 Linear layers at nn.Sequential "
                  "indices 0, 2, ..., 32, a ReLU after each but the last (34 param tensors).");
    kbv_b_dim(b, "batch_size", 1024, 3);
    kbv_b_dim(b, "input_size", 8192, 7);
    kbv_b_dim(b, "hidden_size", 1024, 5);
    kbv_b_dim(b, "output_size", 8192, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,input_size");
    const char *sizes[HIDDEN_LAYERS + 2];
    sizes[0] = "input_size";
    for (int l = 1; l <= HIDDEN_LAYERS; l++)
        sizes[l] = "hidden_size";
    sizes[HIDDEN_LAYERS + 1] = "output_size";
    l3_mlp(b, "network", "x", HIDDEN_LAYERS + 2, sizes);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_layer_sizes", "[hidden_size] * 16");
    kbv_b_init_arg(b, "output_size", "output_size");
    return kbv_b_status(b);
}
