/* L3/21 21_EfficientNetMBConv: conv 1x1 (112 -> 672) - bn - relu6 - depthwise conv 5x5/2 -
 * bn - relu6 - conv 1x1 (672 -> 192) - bn; stride 2, so no residual. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_021(kbv_builder *b)
{
    kbv_b_problem(b, 3, 21, "21_EfficientNetMBConv",
                  "Training-mode BatchNorm; ReLU6 is F.hardtanh(x, 0, 6) in place, as "
                  "nn.ReLU6(inplace=True). The constructor arguments are fixed (stride 2: the "
                  "module's in-place residual is not taken); the small size is a batch of 2 "
                  "at 9x7.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 9);
    kbv_b_dim(b, "width", 224, 7);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,112,height,width");
    l3_mbconv(b, "", "x", 112, 192, 5, 2, 6);
    kbv_b_init_arg(b, "in_channels", "112");
    kbv_b_init_arg(b, "out_channels", "192");
    kbv_b_init_arg(b, "kernel_size", "5");
    kbv_b_init_arg(b, "stride", "2");
    kbv_b_init_arg(b, "expand_ratio", "6");
    return kbv_b_status(b);
}
