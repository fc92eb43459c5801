/* L2/27 27_Conv3d_HardSwish_GroupNorm_Mean:
 * y = torch.mean(group_norm(F.hardswish(conv(x)), 4), dim=[2, 3, 4]), conv = nn.Conv3d(3, 16, 4). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_027 = {
    .level = 2,
    .id = 27,
    .name = "27_Conv3d_HardSwish_GroupNorm_Mean",
    /* num_groups stays 4 at the small size: 8 channels, two per group */
    .dims = {
        {"batch_size", 1024, 3},
        {"in_channels", 3, 3},
        {"out_channels", 16, 8},
        {"depth", 16, 6},
        {"height", 32, 7},
        {"width", 32, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "4", "4", "4"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    /* num_groups=4 and bias=True are left at the constructor's defaults */
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "4"}},
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_HARDSWISH, .args = {"conv_out"}, .out = "hs"},
        {.op = KBV_OP_GROUP_NORM, .args = {"hs", "group_norm.weight", "group_norm.bias"}, .out = "normed", .i = {4}, .f = {1e-5}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"normed"}, .out = "y", .i = {(1 << 2) | (1 << 3) | (1 << 4), 0}},
    },
    .notes = "Output [batch, 16]: per channel the spatial mean of the group-normalised values. The "
             "channels of a group share its mean and variance, so with four channels per group "
             "the four outputs of a group sum to 0 (up to rounding).",
};
