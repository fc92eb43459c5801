/* L2/85 85_Conv2d_GroupNorm_Scale_MaxPool_Clamp:
 * y = torch.clamp(max_pool2d(group_norm(conv(x)) * scale, 4), 0.0, 1.0). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_085 = {
    .level = 2,
    .id = 85,
    .name = "85_Conv2d_GroupNorm_Scale_MaxPool_Clamp",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 32},
        {"height", 128, 13},
        {"width", 128, 15},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "scale", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_ONES},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"num_groups", "16"}, {"scale_shape", "(out_channels, 1, 1)"}, {"maxpool_kernel_size", "4"},
        {"clamp_min", "0.0"}, {"clamp_max", "1.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_GROUP_NORM, .args = {"conv", "group_norm.weight", "group_norm.bias"},
         .out = "gn", .i = {16}, .f = {1e-5}},
        {.op = KBV_OP_MUL, .args = {"gn", "scale"}, .out = "scaled"},
        {.op = KBV_OP_MAX_POOL2D, .args = {"scaled"}, .out = "pooled", .s = "kernel_size=4"},
        {.op = KBV_OP_CLAMP, .args = {"pooled"}, .out = "y", .f = {0.0, 1.0}},
    },
    .notes = "scale is nn.Parameter(torch.ones(out_channels, 1, 1)) (a parameter, read it). "
             "GroupNorm: 16 groups (the small size has 32 channels, two per group). A maximum of "
             "16 normalised values is often above 1: at full size ~56% of the outputs clamp to "
             "1 and ~14% to 0 (measured in PyTorch).",
};
