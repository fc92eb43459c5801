/* L2/83 83_Conv3d_GroupNorm_Min_Clamp_Dropout:
 * y = dropout(torch.clamp(torch.min(group_norm(conv(x)), torch.tensor(0.0)), 0.0, 1.0), 0.2). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_083 = {
    .level = 2,
    .id = 83,
    .name = "83_Conv3d_GroupNorm_Min_Clamp_Dropout",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 8},
        {"depth", 16, 5},
        {"height", 64, 7},
        {"width", 64, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"groups", "8"}, {"min_value", "0.0"}, {"max_value", "1.0"}, {"dropout_p", "0.2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_GROUP_NORM, .args = {"conv", "norm.weight", "norm.bias"}, .out = "gn",
         .i = {8}, .f = {1e-5}},
        {.op = KBV_OP_MIN_SCALAR, .args = {"gn"}, .out = "low", .f = {0.0}},
        {.op = KBV_OP_CLAMP, .args = {"low"}, .out = "clamped", .f = {0.0, 1.0}},
        {.op = KBV_OP_DROPOUT, .args = {"clamped"}, .out = "y", .f = {0.2}, .i = {1}},
    },
    .notes = "Degenerate (the paper excludes it): torch.min(x, 0.0) then clamp(min=0.0, max=1.0) "
             "makes every element exactly 0 "
             "for every input, and dropout of zeros is zero whatever its mask. The forward reads "
             "the module-level globals min_value and max_value (the constructor's own arguments "
             "are unused). nn.Dropout(0.2) is active in training mode; kbv runs it as the identity "
             "(documented deviation), which here changes nothing. GroupNorm: 8 groups "
             "(the small size has 8 channels, one per group: each group still spans the volume). "
             "kbv's audit lists it as degenerate; an all-zero output passes every gate.",
};
