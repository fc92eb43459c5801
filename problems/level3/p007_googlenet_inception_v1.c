/* L3/7 7_GoogleNetInceptionV1: GoogLeNet without its auxiliary heads: conv 7x7/2 - relu -
 * maxpool - conv 1x1 - relu - conv 3x3 - relu - maxpool - inception 3a, 3b - maxpool -
 * 4a..4e - maxpool - 5a, 5b - adaptive average pool - flatten - dropout(0) - fc. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_007(kbv_builder *b)
{
    kbv_b_problem(b, 3, 7, "7_GoogleNetInceptionV1",
                  "Convs with bias and F.relu (not in place); the inception modules have no "
                  "activations. Dropout(0.0) is the identity. The small size is 32x32, the "
                  "least that leaves the last stage one pixel.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 32);
    kbv_b_dim(b, "width", 224, 32);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv2d(b, "conv1", "x",
                              (l3_conv){.cin = 3, .cout = 64, .k = 7, .stride = 2, .pad = 3,
                                        .bias = true});
    x = l3_max_pool2d(b, l3_relu(b, x, false), 3, 2, 1);
    x = l3_relu(b, l3_conv2d(b, "conv2", x, (l3_conv){.cin = 64, .cout = 64, .k = 1, .bias = true}),
                false);
    x = l3_conv2d(b, "conv3", x, (l3_conv){.cin = 64, .cout = 192, .k = 3, .pad = 1, .bias = true});
    x = l3_max_pool2d(b, l3_relu(b, x, false), 3, 2, 1);
    static const struct {
        const char *name;
        l3_inception m;
        bool pool_after;
    } stages[] = {
        {"inception3a", {192, 64, 96, 128, 16, 32, 32}, false},
        {"inception3b", {256, 128, 128, 192, 32, 96, 64}, true},
        {"inception4a", {480, 192, 96, 208, 16, 48, 64}, false},
        {"inception4b", {512, 160, 112, 224, 24, 64, 64}, false},
        {"inception4c", {512, 128, 128, 256, 24, 64, 64}, false},
        {"inception4d", {512, 112, 144, 288, 32, 64, 64}, false},
        {"inception4e", {528, 256, 160, 320, 32, 128, 128}, true},
        {"inception5a", {832, 256, 160, 320, 32, 128, 128}, false},
        {"inception5b", {832, 384, 192, 384, 48, 128, 128}, false},
    };
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        x = l3_inception_module(b, stages[s].name, x, stages[s].m);
        if (stages[s].pool_after)
            x = l3_max_pool2d(b, x, 3, 2, 1);
    }
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, flat = {.i = {1, -1}}, drop = {.f = {0.0}, .i = {1}};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    l3_linear(b, "fc", x, "1024", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
