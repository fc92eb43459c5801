/* L3/20 20_MobileNetV2: conv 3x3/2 (3 -> 32) - bn - relu6 - 17 inverted bottlenecks
 * (t, c, n, s as the module's table) - conv 1x1 to 1280 - bn - relu6 - adaptive average
 * pool - view - dropout(0) - fc, under the module's own initialisation. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_020(kbv_builder *b)
{
    kbv_b_problem(b, 3, 20, "20_MobileNetV2",
                  "The module's _initialize_weights: conv weights kaiming_normal_(mode="
                  "\"fan_out\"), BatchNorm ones and zeros, the Linear's weight normal(0, 0.01) "
                  "and bias zeros. Its blocks compute use_res_connect but never add the "
                  "residual, so none is added here. ReLU6 is F.hardtanh(x, 0, 6) in place, as "
                  "nn.ReLU6(inplace=True). The small size is 64x64 (2x2 before the pool) with a "
                  "batch of 2 and 10 classes.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 64);
    kbv_b_dim(b, "width", 224, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    int index = 0;
    const char *x = l3_seq_conv_bn(b, "features", &index, "x",
                                   (l3_conv){.cin = 3, .cout = 32, .k = 3, .stride = 2, .pad = 1,
                                             .kaiming_fan_out = true},
                                   L3_ACT_RELU6);
    /* t, c, n, s; every c is already a multiple of 8 (_make_divisible keeps it) */
    static const int setting[7][4] = {
        {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
        {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
    };
    int cin = 32;
    char name[32];
    for (int s = 0; s < 7; s++) {
        for (int i = 0; i < setting[s][2]; i++) {
            snprintf(name, sizeof name, "features.%d", index++);
            l3_inverted m = {.cin = cin, .cout = setting[s][1], .hidden = cin * setting[s][0],
                             .k = 3, .stride = i == 0 ? setting[s][3] : 1,
                             .expand = setting[s][0] != 1, .kaiming_fan_out = true,
                             .act = L3_ACT_RELU6};
            x = l3_inverted_bottleneck(b, name, x, m);
            cin = setting[s][1];
        }
    }
    x = l3_seq_conv_bn(b, "features", &index, x,
                       (l3_conv){.cin = cin, .cout = 1280, .k = 1, .kaiming_fan_out = true},
                       L3_ACT_RELU6);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, view = {.s = "(batch_size, -1)"},
                drop = {.f = {0.0}, .i = {1}}, none = {0};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, view, x);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    kbv_b_param(b, "classifier.1.weight", KBV_INIT_NORMAL, "num_classes,1280", false);
    kbv_b_param_value(b, 0.01);
    kbv_b_param(b, "classifier.1.bias", KBV_INIT_ZEROS, "num_classes", false);
    kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, "classifier.1.weight", "classifier.1.bias");
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
