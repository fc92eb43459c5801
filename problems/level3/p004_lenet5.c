/* L3/4 4_LeNet5: conv(1->6, 5) - relu - maxpool 2 - conv(6->16, 5) - relu - maxpool 2 -
 * view(-1, 400) - fc 400->120 - relu - fc 120->84 - relu - fc 84->num_classes. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_004(kbv_builder *b)
{
    kbv_b_problem(b, 3, 4, "4_LeNet5",
                  "The input stays 32x32 at every size: fc1 takes 16 * 5 * 5 features.");
    kbv_b_dim(b, "batch_size", 4096, 3);
    kbv_b_dim(b, "num_classes", 20, 5);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,1,32,32");
    const char *x = l3_conv2d(b, "conv1", "x", (l3_conv){.cin = 1, .cout = 6, .k = 5, .bias = true});
    x = l3_max_pool2d(b, l3_relu(b, x, false), 2, 2, 0);
    x = l3_conv2d(b, "conv2", x, (l3_conv){.cin = 6, .cout = 16, .k = 5, .bias = true});
    x = l3_max_pool2d(b, l3_relu(b, x, false), 2, 2, 0);
    kbv_b_attrs view = {.s = "(-1, 400)"};
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, view, x);
    x = l3_relu(b, l3_linear(b, "fc1", x, "400", "120", true), false);
    x = l3_relu(b, l3_linear(b, "fc2", x, "120", "84", true), false);
    l3_linear(b, "fc3", x, "84", "num_classes", true);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
