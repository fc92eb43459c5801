/* L3/26 26_ShuffleNet: conv3x3/2 (3 -> 24) - bn - relu - maxpool 3/2 - stages
 * of ShuffleNet units (3 x 240, 7 x 480, 3 x 960 channels, groups 3) - conv1x1
 * to 1024 - bn - relu - adaptive average pool - view - fc. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_026(kbv_builder *b)
{
    kbv_b_problem(b, 3, 26, "26_ShuffleNet",
                  "Training-mode BatchNorm (batch statistics); every unit has stride 1, the "
                  "first of a stage a conv1x1-bn shortcut, the others the identity; each "
                  "unit's channel shuffle is two views and one copy. The small size is 30x26 "
                  "with a batch of 2 (the stages run at 8x7).");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 30);
    kbv_b_dim(b, "width", 224, 26);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv_bn_act(b, "conv1", "bn1", "x",
                                   (l3_conv){.cin = 3, .cout = 24, .k = 3, .stride = 2, .pad = 1},
                                   false);
    x = l3_relu(b, x, false);
    x = l3_max_pool2d(b, x, 3, 2, 1);
    static const int repeats[3] = {3, 7, 3}, widths[4] = {24, 240, 480, 960};
    char name[32];
    for (int s = 0; s < 3; s++)
        for (int u = 0; u < repeats[s]; u++) {
            snprintf(name, sizeof name, "stage%d.%d", s + 2, u);
            x = l3_shufflenet_unit(b, name, x, u ? widths[s + 1] : widths[s], widths[s + 1], 3);
        }
    x = l3_conv_bn_act(b, "conv5", "bn5", x, (l3_conv){.cin = 960, .cout = 1024, .k = 1}, false);
    x = l3_relu(b, x, false);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, flat = {.s = "(size(0), -1)"};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, flat, x);
    l3_linear(b, "fc", x, "1024", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
