/* L3/22 22_EfficientNetB0: conv 3x3/2 (3 -> 32) - bn - relu - 13 MBConv blocks (the
 * module's table) - conv 1x1 (320 -> 1280) - bn - relu - adaptive average pool - view - fc. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_022(kbv_builder *b)
{
    kbv_b_problem(b, 3, 22, "22_EfficientNetB0",
                  "MBConv as L3/21, with the in-place residual where the stride is 1 and the "
                  "channels stay; no squeeze-excite. The model's own ReLUs are F.relu (not in "
                  "place). Training-mode BatchNorm. The small size is 64x64 (2x2 at the end) "
                  "with a batch of 2 and 10 classes.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 64);
    kbv_b_dim(b, "width", 224, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv_bn_act(b, "conv1", "bn1", "x",
                                   (l3_conv){.cin = 3, .cout = 32, .k = 3, .stride = 2, .pad = 1},
                                   false);
    x = l3_relu(b, x, false);
    static const struct {
        int cin, cout, k, stride, expand;
    } blocks[] = {
        {32, 16, 3, 1, 1},   {16, 24, 3, 2, 6},   {24, 24, 3, 1, 6},   {24, 40, 5, 2, 6},
        {40, 40, 5, 1, 6},   {40, 80, 3, 2, 6},   {80, 80, 3, 1, 6},   {80, 112, 5, 1, 6},
        {112, 112, 5, 1, 6}, {112, 192, 5, 2, 6}, {192, 192, 5, 1, 6}, {192, 192, 5, 1, 6},
        {192, 320, 3, 1, 6},
    };
    char name[32];
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        snprintf(name, sizeof name, "blocks.%zu", k);
        x = l3_mbconv(b, name, x, blocks[k].cin, blocks[k].cout, blocks[k].k, blocks[k].stride,
                      blocks[k].expand);
    }
    x = l3_conv_bn_act(b, "conv2", "bn2", x, (l3_conv){.cin = 320, .cout = 1280, .k = 1}, false);
    x = l3_relu(b, x, false);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, view = {.s = "(batch_size, -1)"};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, view, x);
    l3_linear(b, "fc", x, "1280", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
