/* L3/45 45_UNetSoftmax: a U-Net of DoubleConv blocks (conv3x3 - bn - softmax
 * over the width, twice) with four max-pool downsamplings, a bottleneck, and
 * four ConvTranspose2d upsamplings each concatenated with its encoder's
 * output, then a conv1x1 to the output channels. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_045(kbv_builder *b)
{
    kbv_b_problem(b, 3, 45, "45_UNetSoftmax",
                  "Training-mode BatchNorm (batch statistics); Softmax(dim=-1) normalises "
                  "over the width. The encoders' outputs live until their decoder's cat, as "
                  "in the module's forward. The small size keeps the channels (features = 64 "
                  "is a constructor argument) and is 16x48 with a batch of 2, so the "
                  "bottleneck runs at 1x3.");
    kbv_b_dim(b, "batch_size", 8, 2);
    kbv_b_dim(b, "height", 64, 16);
    kbv_b_dim(b, "width", 512, 48);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,8,height,width");
    const int f = 64;
    const char *enc[4];
    const char *x = "x";
    char name[32];
    int cin = 8;
    for (int level = 0; level < 4; level++) {
        snprintf(name, sizeof name, "encoder%d", level + 1);
        enc[level] = l3_double_conv_softmax(b, name, x, cin, f << level);
        x = l3_max_pool2d(b, enc[level], 2, 2, 0);
        cin = f << level;
    }
    x = l3_double_conv_softmax(b, "bottleneck", x, 8 * f, 16 * f);
    kbv_b_attrs up = {.s = "stride=2"}, cat = {.i = {1}};
    for (int level = 3; level >= 0; level--) {
        int c = f << level;
        char w[48], bias[48];
        snprintf(w, sizeof w, "upconv%d.weight", level + 1);
        snprintf(bias, sizeof bias, "upconv%d.bias", level + 1);
        kbv_b_paramf(b, w, KBV_INIT_UNIFORM_FAN_IN, false, "%d,%d,2,2", 2 * c, c);
        kbv_b_paramf(b, bias, KBV_INIT_UNIFORM_FAN_IN, false, "%d", c);
        x = kbv_b_op3(b, KBV_OP_CONV_TRANSPOSE2D_BIAS, NULL, up, x, w, bias);
        x = kbv_b_op2(b, KBV_OP_CAT, NULL, cat, x, enc[level]);
        snprintf(name, sizeof name, "decoder%d", level + 1);
        x = l3_double_conv_softmax(b, name, x, 2 * c, c);
    }
    l3_conv2d(b, "final_conv", x, (l3_conv){.cin = f, .cout = 4, .k = 1, .bias = true});
    kbv_b_init_arg(b, "in_channels", "8");
    kbv_b_init_arg(b, "out_channels", "4");
    kbv_b_init_arg(b, "features", "64");
    return kbv_b_status(b);
}
