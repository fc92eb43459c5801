/* L3/24 24_EfficientNetB2: conv 3x3/2 (3 -> 32) - bn - relu - 5 inverted bottlenecks with
 * the squeeze in sequence (expand - bn - relu - depthwise 3x3 - bn - relu - pool 1x1 - conv
 * to C/4 - relu - conv to C - sigmoid - conv 1x1 - bn) - conv 1x1 (384 -> 1408) - bn - relu -
 * adaptive average pool - flatten - fc. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_024(kbv_builder *b)
{
    kbv_b_problem(b, 3, 24, "24_EfficientNetB2",
                  "The squeeze-excite branch is applied in sequence, not multiplied back, so "
                  "from mbconv1's pool on every map is 1x1 and each training-mode BatchNorm "
                  "normalises batch_size values per channel: two at the full size, where the "
                  "output depends on rounding (float32 and float64 runs differ by 1e-2 to 1). "
                  "One nn.ReLU(inplace=True) serves the model and its blocks. The small size "
                  "is a batch of 8 (it grows: over 8 values the float32 result stays within "
                  "4e-4 of float64) at 8x8 with 10 classes.");
    kbv_b_dim(b, "batch_size", 2, 8);
    kbv_b_dim(b, "height", 224, 8);
    kbv_b_dim(b, "width", 224, 8);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv_bn_act(b, "conv1", "bn1", "x",
                                   (l3_conv){.cin = 3, .cout = 32, .k = 3, .stride = 2, .pad = 1},
                                   true);
    static const struct {
        int cin, cout, stride, expand;
    } blocks[] = {
        {32, 96, 1, 3}, {96, 144, 2, 6}, {144, 192, 2, 6}, {192, 288, 2, 6}, {288, 384, 1, 6},
    };
    char name[32];
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        snprintf(name, sizeof name, "mbconv%zu", k + 1);
        l3_inverted m = {.cin = blocks[k].cin, .cout = blocks[k].cout,
                         .hidden = blocks[k].cin * blocks[k].expand, .k = 3,
                         .stride = blocks[k].stride, .expand = blocks[k].expand != 1,
                         .squeeze = true, .act = L3_ACT_RELU};
        x = l3_inverted_bottleneck(b, name, x, m);
    }
    x = l3_conv_bn_act(b, "conv_final", "bn_final", x,
                       (l3_conv){.cin = 384, .cout = 1408, .k = 1}, true);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, flat = {.i = {1, -1}};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    l3_linear(b, "fc", x, "1408", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
