/* L2/47 47_Conv3d_Mish_Tanh: y = tanh(mish(conv(x))), conv = nn.Conv3d(32, 64, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_047 = {
    .level = 2,
    .id = 47,
    .name = "47_Conv3d_Mish_Tanh",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"D", 32, 5},
        {"H", 64, 7},
        {"W", 64, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    /* stride=1 and padding=0 are left at the constructor's defaults */
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MISH, .args = {"conv_out"}, .out = "m"},
        {.op = KBV_OP_TANH, .args = {"m"}, .out = "y"},
    },
};
