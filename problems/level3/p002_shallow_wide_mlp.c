/* L3/2 2_ShallowWideMLP: Linear(16384, 32768), ReLU, Linear(32768, 32768), ReLU,
 * Linear(32768, 16384) over x [batch_size, input_size]. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_002(kbv_builder *b)
{
    kbv_b_problem(b, 3, 2, "2_ShallowWideMLP",
                  "2.15e9 parameters (8 GiB in float32): the model is the memory, the "
                  "activations are 128 rows. nn.Sequential indices 0, 2 and 4.");
    kbv_b_dim(b, "batch_size", 128, 3);
    kbv_b_dim(b, "input_size", 16384, 7);
    kbv_b_dim(b, "hidden_size_0", 32768, 6);
    kbv_b_dim(b, "hidden_size_1", 32768, 5);
    kbv_b_dim(b, "output_size", 16384, 4);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,input_size");
    const char *sizes[] = {"input_size", "hidden_size_0", "hidden_size_1", "output_size"};
    l3_mlp(b, "network", "x", 4, sizes);
    kbv_b_init_arg(b, "input_size", "input_size");
    kbv_b_init_arg(b, "hidden_layer_sizes", "[hidden_size_0, hidden_size_1]");
    kbv_b_init_arg(b, "output_size", "output_size");
    return kbv_b_status(b);
}
