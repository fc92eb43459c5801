/* L3/14 14_DenseNet121DenseBlock: six dense layers (BatchNorm2d - ReLU(inplace) -
 * Conv2d 3x3 to 32 - Dropout(0)) on 32 input channels, each reading the cat of the
 * input and every earlier layer's output: 32 + 6 * 32 = 224 channels out. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_014(kbv_builder *b)
{
    kbv_b_problem(b, 3, 14, "14_DenseNet121DenseBlock",
                  "torch.cat after every layer, of the input and all new features so far "
                  "(two operands, then three, ... seven). Training-mode BatchNorm; Dropout(0.0) "
                  "is the identity.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 5);
    kbv_b_dim(b, "width", 224, 7);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,32,height,width");
    int channels = 32;
    l3_dense_block(b, "", "x", 6, &channels, 32);
    kbv_b_init_arg(b, "num_layers", "6");
    kbv_b_init_arg(b, "num_input_features", "32");
    kbv_b_init_arg(b, "growth_rate", "32");
    return kbv_b_status(b);
}
