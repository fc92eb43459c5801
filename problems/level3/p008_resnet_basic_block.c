/* L3/8 8_ResNetBasicBlock: one BasicBlock(3 -> 64, stride 1) with its 1x1
 * downsample: relu(bn2(conv2(relu(bn1(conv1(x))))) + bn(conv1x1(x))). */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_008(kbv_builder *b)
{
    kbv_b_problem(b, 3, 8, "8_ResNetBasicBlock",
                  "BatchNorm in training mode (the module's default): batch statistics; the "
                  "running statistics it also updates never reach the output, and "
                  "num_batches_tracked is not listed. ReLU(inplace=True) and `out += identity` "
                  "are in place, as in the module, so they allocate nothing.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 7);
    kbv_b_dim(b, "width", 224, 5);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    l3_basic_block(b, "", "x", 3, 64, 1, true);
    kbv_b_init_arg(b, "in_channels", "3");
    kbv_b_init_arg(b, "out_channels", "64");
    kbv_b_init_arg(b, "stride", "1");
    return kbv_b_status(b);
}
