/* L3/5 5_AlexNet: five convs (11/4, 5, 3, 3, 3) with in-place ReLUs and three max pools,
 * flatten, fc 9216->4096 - relu - dropout(0) - fc 4096->4096 - relu - dropout(0) - fc. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_005(kbv_builder *b)
{
    kbv_b_problem(b, 3, 5, "5_AlexNet",
                  "In-place ReLUs as the module's; Dropout(p=0.0) is the identity. The image "
                  "stays 224x224 at every size (fc1 takes 256 * 6 * 6 features); the small size "
                  "is one image and 10 classes.");
    kbv_b_dim(b, "batch_size", 1024, 1);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,224,224");
    static const struct {
        const char *name;
        l3_conv c;
        bool pool_after;
    } convs[] = {
        {"conv1", {.cin = 3, .cout = 96, .k = 11, .stride = 4, .pad = 2, .bias = true}, true},
        {"conv2", {.cin = 96, .cout = 256, .k = 5, .pad = 2, .bias = true}, true},
        {"conv3", {.cin = 256, .cout = 384, .k = 3, .pad = 1, .bias = true}, false},
        {"conv4", {.cin = 384, .cout = 384, .k = 3, .pad = 1, .bias = true}, false},
        {"conv5", {.cin = 384, .cout = 256, .k = 3, .pad = 1, .bias = true}, true},
    };
    const char *x = "x";
    for (size_t c = 0; c < sizeof convs / sizeof convs[0]; c++) {
        x = l3_relu(b, l3_conv2d(b, convs[c].name, x, convs[c].c), true);
        if (convs[c].pool_after)
            x = l3_max_pool2d(b, x, 3, 2, 0);
    }
    kbv_b_attrs flat = {.i = {1, -1}}, drop = {.f = {0.0}, .i = {1}};
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    x = l3_relu(b, l3_linear(b, "fc1", x, "9216", "4096", true), true);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    x = l3_relu(b, l3_linear(b, "fc2", x, "4096", "4096", true), true);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    l3_linear(b, "fc3", x, "4096", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
