/* L2/60 60_ConvTranspose3d_Swish_GroupNorm_HardSwish:
 * c = conv_transpose(x); y = F.hardswish(group_norm(torch.sigmoid(c) * c)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_060 = {
    .level = 2,
    .id = 60,
    .name = "60_ConvTranspose3d_Swish_GroupNorm_HardSwish",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 8},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"groups", "4"}, {"eps", "1e-05"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1"},
        {.op = KBV_OP_SIGMOID, .args = {"ct"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"sig", "ct"}, .out = "swish"},
        {.op = KBV_OP_GROUP_NORM, .args = {"swish", "group_norm.weight", "group_norm.bias"},
         .out = "gn", .i = {4}, .f = {1e-5}},
        {.op = KBV_OP_HARDSWISH, .args = {"gn"}, .out = "y"},
    },
    .notes = "GroupNorm with 4 groups: at the small size 8 channels, two per group.",
};
