/* L2/61 61_ConvTranspose3d_ReLU_GroupNorm:
 * y = group_norm(torch.relu(conv_transpose(x))), conv_transpose without bias, 8 groups. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_061 = {
    .level = 2,
    .id = 61,
    .name = "61_ConvTranspose3d_ReLU_GroupNorm",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 16},
        {"D", 32, 3},
        {"H", 32, 5},
        {"W", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"groups", "8"}, {"bias", "False"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D, .args = {"x", "conv_transpose.weight"}, .out = "ct",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_RELU, .args = {"ct"}, .out = "r"},
        {.op = KBV_OP_GROUP_NORM, .args = {"r", "group_norm.weight", "group_norm.bias"},
         .out = "y", .i = {8}, .f = {1e-5}},
    },
    .notes = "The transposed convolution has no bias (bias=False is a constructor argument). "
             "GroupNorm: 8 groups, default eps 1e-5; the small size has 16 channels, two per group.",
};
