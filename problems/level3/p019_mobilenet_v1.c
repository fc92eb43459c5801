/* L3/19 19_MobileNetV1: conv_bn (3 -> 32, stride 2) - 13 conv_dw blocks (depthwise 3x3 -
 * bn - relu - conv 1x1 - bn - relu) to 1024 channels - AvgPool2d(7) - view - fc. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_019(kbv_builder *b)
{
    kbv_b_problem(b, 3, 19, "19_MobileNetV1",
                  "alpha = 1.0. Training-mode BatchNorm, in-place ReLUs as the module's. "
                  "AvgPool2d(7) needs a 7x7 map and fc takes 1024 features, so the image is "
                  "193x193 to 416x416 at every size: the small size is one 193x193 image "
                  "(7x7 before the pool) and 10 classes.");
    kbv_b_dim(b, "batch_size", 10, 1);
    kbv_b_dim(b, "height", 224, 193);
    kbv_b_dim(b, "width", 224, 193);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    int index = 0;
    const char *x = l3_seq_conv_bn(b, "model.0", &index, "x",
                                   (l3_conv){.cin = 3, .cout = 32, .k = 3, .stride = 2, .pad = 1},
                                   L3_ACT_RELU);
    static const struct {
        int cin, cout, stride;
    } dw[] = {
        {32, 64, 1},    {64, 128, 2},   {128, 128, 1},  {128, 256, 2},  {256, 256, 1},
        {256, 512, 2},  {512, 512, 1},  {512, 512, 1},  {512, 512, 1},  {512, 512, 1},
        {512, 512, 1},  {512, 1024, 2}, {1024, 1024, 1},
    };
    char name[32];
    for (size_t k = 0; k < sizeof dw / sizeof dw[0]; k++) {
        snprintf(name, sizeof name, "model.%zu", k + 1);
        x = l3_depthwise_separable(b, name, x, dw[k].cin, dw[k].cout, dw[k].stride);
    }
    kbv_b_attrs pool = {.s = "kernel_size=7"}, view = {.s = "(batch_size, -1)"};
    x = kbv_b_op1(b, KBV_OP_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, view, x);
    l3_linear(b, "fc", x, "1024", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    kbv_b_init_arg(b, "input_channels", "3");
    kbv_b_init_arg(b, "alpha", "1.0");
    return kbv_b_status(b);
}
