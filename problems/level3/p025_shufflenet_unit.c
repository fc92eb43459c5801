/* L3/25 25_ShuffleNetUnit: one ShuffleNet unit, 240 -> 480 channels in 3
 * groups: conv1x1 (groups) - bn - relu - depthwise conv3x3 - bn - channel
 * shuffle - conv1x1 (groups) - bn - relu, += conv1x1 - bn of the input. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_025(kbv_builder *b)
{
    kbv_b_problem(b, 3, 25, "25_ShuffleNetUnit",
                  "Training-mode BatchNorm (batch statistics). The channel shuffle is "
                  "x.view(N, 3, 40, H, W).transpose(1, 2).contiguous().view(N, -1, H, W): two "
                  "views and one copy, as in the module. `out += shortcut` is in place. The "
                  "small size keeps the channels (constructor arguments) and shrinks the batch "
                  "and the image.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 7);
    kbv_b_dim(b, "width", 224, 5);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,240,height,width");
    l3_shufflenet_unit(b, "", "x", 240, 480, 3);
    kbv_b_init_arg(b, "in_channels", "240");
    kbv_b_init_arg(b, "out_channels", "480");
    kbv_b_init_arg(b, "groups", "3");
    return kbv_b_status(b);
}
