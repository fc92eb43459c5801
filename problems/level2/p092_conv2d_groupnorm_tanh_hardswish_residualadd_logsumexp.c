/* L2/92 92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp:
 * c = conv(x); y = torch.logsumexp(c + hardswish(tanh(group_norm(c))), dim=1, keepdim=True). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_092 = {
    .level = 2,
    .id = 92,
    .name = "92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 32},
        {"height", 128, 9},
        {"width", 128, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
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
        {"groups", "16"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "x_conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_GROUP_NORM, .args = {"x_conv", "group_norm.weight", "group_norm.bias"},
         .out = "x_norm", .i = {16}, .f = {1e-5}},
        {.op = KBV_OP_TANH, .args = {"x_norm"}, .out = "x_tanh"},
        {.op = KBV_OP_HARDSWISH, .args = {"x_tanh"}, .out = "x_hard_swish"},
        {.op = KBV_OP_ADD, .args = {"x_conv", "x_hard_swish"}, .out = "x_res"},
        {.op = KBV_OP_LOGSUMEXP, .args = {"x_res"}, .out = "y", .i = {1, 1}},
    },
    .notes = "The residual adds the convolution output (before the GroupNorm), then logsumexp "
             "over channels leaves [batch_size, 1, H, W]. GroupNorm: 16 groups, eps 1e-5 (the "
             "small size has 32 channels, two per group).",
};
