/* L2/21 21_Conv2d_Add_Scale_Sigmoid_GroupNorm: y = group_norm(sigmoid((conv(x) + bias) * scale), 8),
 * conv = nn.Conv2d(8, 32, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_021 = {
    .level = 2,
    .id = 21,
    .name = "21_Conv2d_Add_Scale_Sigmoid_GroupNorm",
    /* num_groups stays 8 at the small size: 16 channels, two per group */
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 32, 16},
        {"height", 256, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "scale", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"num_groups", "8"}, {"bias_shape", "(out_channels, 1, 1)"},
        {"scale_shape", "(out_channels, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_ADD, .args = {"conv_out", "bias"}, .out = "biased"},
        {.op = KBV_OP_MUL, .args = {"biased", "scale"}, .out = "scaled"},
        {.op = KBV_OP_SIGMOID, .args = {"scaled"}, .out = "s"},
        {.op = KBV_OP_GROUP_NORM, .args = {"s", "group_norm.weight", "group_norm.bias"}, .out = "y", .i = {8}, .f = {1e-5}},
    },
    .notes = "bias and scale are standard normal (torch.randn), added and multiplied per "
             "channel before the sigmoid.",
};
