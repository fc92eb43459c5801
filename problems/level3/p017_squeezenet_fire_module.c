/* L3/17 17_SqueezeNetFireModule: squeeze 1x1 (3 -> 6) - ReLU, then cat of expand1x1
 * (6 -> 64) - ReLU and expand3x3 (6 -> 64) - ReLU: 128 channels out. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_017(kbv_builder *b)
{
    kbv_b_problem(b, 3, 17, "17_SqueezeNetFireModule",
                  "ReLUs in place, as the module's. The small size keeps the channels "
                  "(constructor arguments, fixed) and shrinks the batch and the image.");
    kbv_b_dim(b, "batch_size", 128, 2);
    kbv_b_dim(b, "height", 256, 7);
    kbv_b_dim(b, "width", 256, 5);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    l3_fire_module(b, "", "x", 3, 6, 64, 64);
    kbv_b_init_arg(b, "in_channels", "3");
    kbv_b_init_arg(b, "squeeze_channels", "6");
    kbv_b_init_arg(b, "expand1x1_channels", "64");
    kbv_b_init_arg(b, "expand3x3_channels", "64");
    return kbv_b_status(b);
}
