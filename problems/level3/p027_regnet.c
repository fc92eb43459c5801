/* L3/27 27_RegNet: three stages of conv3x3 - bn - relu - conv3x3 - bn - relu -
 * maxpool 2/2 (64, 128, 256 channels, convs with bias), the mean over the
 * image, fc to the classes. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_027(kbv_builder *b)
{
    kbv_b_problem(b, 3, 27, "27_RegNet",
                  "Training-mode BatchNorm (batch statistics); ReLUs out of place; each stage "
                  "is feature_extractor.i, a Sequential of conv (0), bn (1), relu, conv (3), "
                  "bn (4), relu, maxpool. The small size is 20x12 with a batch of 2.");
    kbv_b_dim(b, "batch_size", 8, 2);
    kbv_b_dim(b, "image_height", 224, 20);
    kbv_b_dim(b, "image_width", 224, 12);
    kbv_b_dim(b, "output_classes", 10, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,image_height,image_width");
    static const int widths[3] = {64, 128, 256};
    const char *x = "x";
    char name[64];
    int cin = 3;
    for (int s = 0; s < 3; s++) {
        for (int half = 0; half < 2; half++) {
            snprintf(name, sizeof name, "feature_extractor.%d.%d", s, 3 * half);
            x = l3_conv2d(b, name, x, (l3_conv){.cin = half ? widths[s] : cin,
                                                .cout = widths[s], .k = 3, .pad = 1,
                                                .bias = true});
            snprintf(name, sizeof name, "feature_extractor.%d.%d", s, 3 * half + 1);
            x = l3_relu(b, l3_batch_norm2d(b, name, x, widths[s]), false);
        }
        x = l3_max_pool2d(b, x, 2, 2, 0);
        cin = widths[s];
    }
    kbv_b_attrs mean = {.i = {(1 << 2) | (1 << 3), 0}};
    x = kbv_b_op1(b, KBV_OP_MEAN_DIMS, NULL, mean, x);
    l3_linear(b, "fc", x, "256", "output_classes", true);
    kbv_b_init_arg(b, "input_channels", "3");
    kbv_b_init_arg(b, "stages", "3");
    kbv_b_init_arg(b, "block_widths", "[64, 128, 256]");
    kbv_b_init_arg(b, "output_classes", "output_classes");
    return kbv_b_status(b);
}
