/* L2/17 17_Conv2d_InstanceNorm_Divide: y = instance_norm(conv(x)) / 2.0,
 * conv = nn.Conv2d(64, 128, 3), nn.InstanceNorm2d(128) (no affine). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_017 = {
    .level = 2,
    .id = 17,
    .name = "17_Conv2d_InstanceNorm_Divide",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 128, 9},
        {"width", 128, 11},
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
        {"divide_by", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_INSTANCE_NORM, .args = {"conv_out"}, .out = "normed", .f = {1e-5}},
        {.op = KBV_OP_DIV_SCALAR, .args = {"normed"}, .out = "y", .f = {2.0}},
    },
    .notes = "nn.InstanceNorm2d defaults: no affine, no running stats, eps 1e-5; each (sample, "
             "channel) plane is normalised over its own H x W values, which also cancels the "
             "conv bias.",
};
