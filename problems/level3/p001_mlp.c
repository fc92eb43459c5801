/* L3/1 1_MLP: nn.Sequential(Linear(input_size, 16384), ReLU, Linear(16384, 16384), ReLU,
 * Linear(16384, output_size)) over x [batch_size, input_size]. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_001(kbv_builder *b)
{
    kbv_b_problem(b, 3, 1, "1_MLP",
                  "Three Linear layers with ReLUs between them, as nn.Sequential indices 0, 2 "
                  "and 4. The small size keeps the structure (two hidden layers) with every "
                  "width its own odd size.");
    kbv_b_dim(b, "batch_size", 128, 3);
    kbv_b_dim(b, "input_size", 16384, 7);
    kbv_b_dim(b, "layer_size_0", 16384, 6);
    kbv_b_dim(b, "layer_size_1", 16384, 5);
    kbv_b_dim(b, "output_size", 8192, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,input_size");
    const char *sizes[] = {"input_size", "layer_size_0", "layer_size_1", "output_size"};
    l3_mlp(b, "network", "x", 4, sizes);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "layer_sizes", "[layer_size_0, layer_size_1]");
    kbv_b_init_arg(b, "output_size", "output_size");
    return kbv_b_status(b);
}
