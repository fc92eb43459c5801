/* L2/4 4_Conv2d_Mish_Mish: y = mish(mish(conv(x))), conv = nn.Conv2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_004 = {
    .level = 2,
    .id = 4,
    .name = "4_Conv2d_Mish_Mish",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 256, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MISH, .args = {"conv_out"}, .out = "m1"},
        {.op = KBV_OP_MISH, .args = {"m1"}, .out = "y"},
    },
};
