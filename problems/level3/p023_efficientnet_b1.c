/* L3/23 23_EfficientNetB1: conv 3x3/2 (3 -> 32) - bn - relu - 7 inverted bottlenecks (conv
 * 1x1 expand - bn - relu6 - depthwise 3x3 - bn - relu6 - conv 1x1 - bn, no residual) - conv
 * 1x1 (320 -> 1280) - bn - relu - adaptive average pool - flatten - fc. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_023(kbv_builder *b)
{
    kbv_b_problem(b, 3, 23, "23_EfficientNetB1",
                  "Every block has its expansion conv, mbconv1's too (expand ratio 1: 32 -> 32); "
                  "no residuals. ReLU6 is F.hardtanh(x, 0, 6) in place, as nn.ReLU6(inplace="
                  "True); the model's own ReLUs are F.relu (not in place). Training-mode "
                  "BatchNorm. The small size is 64x64 (2x2 at the end) with a batch of 2 and 10 "
                  "classes.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 240, 64);
    kbv_b_dim(b, "width", 240, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv_bn_act(b, "conv1", "bn1", "x",
                                   (l3_conv){.cin = 3, .cout = 32, .k = 3, .stride = 2, .pad = 1},
                                   false);
    x = l3_relu(b, x, false);
    static const struct {
        int cin, cout, stride, expand;
    } blocks[] = {
        {32, 16, 1, 1},  {16, 24, 2, 6},   {24, 40, 2, 6},   {40, 80, 2, 6},
        {80, 112, 1, 6}, {112, 192, 2, 6}, {192, 320, 1, 6},
    };
    char name[32];
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        snprintf(name, sizeof name, "mbconv%zu", k + 1);
        l3_inverted m = {.cin = blocks[k].cin, .cout = blocks[k].cout,
                         .hidden = blocks[k].cin * blocks[k].expand, .k = 3,
                         .stride = blocks[k].stride, .expand = true, .act = L3_ACT_RELU6};
        x = l3_inverted_bottleneck(b, name, x, m);
    }
    x = l3_conv_bn_act(b, "conv2", "bn2", x, (l3_conv){.cin = 320, .cout = 1280, .k = 1}, false);
    x = l3_relu(b, x, false);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, flat = {.i = {1, -1}};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    l3_linear(b, "fc", x, "1280", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
