/* L2/23 23_Conv3d_GroupNorm_Mean: y = group_norm(conv(x), 8).mean(dim=[1, 2, 3, 4]),
 * conv = nn.Conv3d(3, 24, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_023 = {
    .level = 2,
    .id = 23,
    .name = "23_Conv3d_GroupNorm_Mean",
    /* num_groups stays 8 at the small size: 16 channels, two per group */
    .dims = {
        {"batch_size", 128, 3},
        {"in_channels", 3, 3},
        {"out_channels", 24, 16},
        {"D", 24, 5},
        {"H", 32, 7},
        {"W", 32, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"num_groups", "8"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_GROUP_NORM, .args = {"conv_out", "group_norm.weight", "group_norm.bias"}, .out = "normed", .i = {8}, .f = {1e-5}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"normed"}, .out = "y", .i = {(1 << 1) | (1 << 2) | (1 << 3) | (1 << 4), 0}},
    },
    .notes = "Degenerate (the paper excludes it): every group is normalised to mean 0 and, with "
             "GroupNorm's initial weight 1 and bias 0, the mean over all of a sample's channels "
             "and positions is the mean of the group means, 0 up to rounding; the output [batch] "
             "is rounding noise around 0 whatever the input. At kbv's small size the float64 oracle "
             "gives |y| ~ 1e-17 and float32 PyTorch ~ 1e-9; kbv audit finds that an all-zero output "
             "passes the allclose gate on every draw, but does not call the problem constant, as "
             "the noise differs from draw to draw.",
};
