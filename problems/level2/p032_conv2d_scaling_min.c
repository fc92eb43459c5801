/* L2/32 32_Conv2d_Scaling_Min: y = torch.min(conv(x) * 2.0, dim=1, keepdim=True)[0],
 * conv = nn.Conv2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_032 = {
    .level = 2,
    .id = 32,
    .name = "32_Conv2d_Scaling_Min",
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
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"scale_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"conv_out"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_MIN, .args = {"scaled"}, .out = "y", .i = {1, 1}},
    },
};
