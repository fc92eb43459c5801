/* L2/19 19_ConvTranspose2d_GELU_GroupNorm: y = group_norm(gelu(convT(x)), 8),
 * convT = nn.ConvTranspose2d(64, 64, 3, stride=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_019 = {
    .level = 2,
    .id = 19,
    .name = "19_ConvTranspose2d_GELU_GroupNorm",
    /* num_groups stays 8 at the small size: 16 channels, two per group */
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 16},
        {"height", 256, 5},
        {"width", 256, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "1"}, {"groups", "8"}, {"num_groups", "8"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=1"},
        {.op = KBV_OP_GELU, .args = {"up"}, .out = "g"},
        {.op = KBV_OP_GROUP_NORM, .args = {"g", "group_norm.weight", "group_norm.bias"}, .out = "y", .i = {8}, .f = {1e-5}},
    },
    .notes = "The constructor argument groups is unused. Output size H + 2 (258 at full size).",
};
