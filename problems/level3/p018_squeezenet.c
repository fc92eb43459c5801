/* L3/18 18_SqueezeNet: conv 7x7/2 (3 -> 96) - ReLU - maxpool 3/2 (ceil) - fire modules
 * 2-4 - maxpool - fire 5-8 - maxpool - fire 9 - dropout(0) - conv 1x1 to num_classes -
 * ReLU - adaptive average pool - flatten. */
#include "level3.h"

#include <stdio.h>

#include "blocks.h"

kbv_status kbv_l3_018(kbv_builder *b)
{
    kbv_b_problem(b, 3, 18, "18_SqueezeNet",
                  "The fire modules are features.3-5, 7-10 and 12 of the Sequential; max pools "
                  "with ceil_mode=True; ReLUs in place; Dropout(p=0.0) is the identity. The "
                  "small size is 64x64 with a batch of 2.");
    kbv_b_dim(b, "batch_size", 64, 2);
    kbv_b_dim(b, "height", 512, 64);
    kbv_b_dim(b, "width", 512, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    const char *x = l3_conv2d(b, "features.0", "x",
                              (l3_conv){.cin = 3, .cout = 96, .k = 7, .stride = 2, .bias = true});
    x = l3_relu(b, x, true);
    kbv_b_attrs pool = {.s = "kernel_size=3, stride=2, ceil_mode=True"};
    x = kbv_b_op1(b, KBV_OP_MAX_POOL2D, NULL, pool, x);
    static const struct {
        int index, cin, sq, e1, e3;
        bool pool_after;
    } fires[] = {
        {3, 96, 16, 64, 64, false},     {4, 128, 16, 64, 64, false},
        {5, 128, 32, 128, 128, true},   {7, 256, 32, 128, 128, false},
        {8, 256, 48, 192, 192, false},  {9, 384, 48, 192, 192, false},
        {10, 384, 64, 256, 256, true},  {12, 512, 64, 256, 256, false},
    };
    char name[32];
    for (size_t f = 0; f < sizeof fires / sizeof fires[0]; f++) {
        snprintf(name, sizeof name, "features.%d", fires[f].index);
        x = l3_fire_module(b, name, x, fires[f].cin, fires[f].sq, fires[f].e1, fires[f].e3);
        if (fires[f].pool_after)
            x = kbv_b_op1(b, KBV_OP_MAX_POOL2D, NULL, pool, x);
    }
    kbv_b_attrs drop = {.f = {0.0}, .i = {1}}, avg = {.s = "output_size=(1, 1)"},
                flat = {.i = {1, -1}};
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    kbv_b_paramf(b, "classifier.1.weight", KBV_INIT_UNIFORM_FAN_IN, false, "num_classes,512,1,1");
    kbv_b_paramf(b, "classifier.1.bias", KBV_INIT_UNIFORM_FAN_IN, false, "num_classes");
    kbv_b_attrs conv = {.s = "stride=1, padding=0, groups=1"};
    x = kbv_b_op3(b, KBV_OP_CONV2D_BIAS, NULL, conv, x, "classifier.1.weight",
                  "classifier.1.bias");
    x = l3_relu(b, x, true);
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, avg, x);
    kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
