/* L2/25 25_Conv2d_Min_Tanh_Tanh: y = tanh(tanh(torch.min(conv(x), dim=1, keepdim=True)[0])),
 * conv = nn.Conv2d(16, 64, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_025 = {
    .level = 2,
    .id = 25,
    .name = "25_Conv2d_Min_Tanh_Tanh",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 16, 3},
        {"out_channels", 64, 5},
        {"height", 256, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MIN, .args = {"conv_out"}, .out = "channel_min", .i = {1, 1}},
        {.op = KBV_OP_TANH, .args = {"channel_min"}, .out = "t1"},
        {.op = KBV_OP_TANH, .args = {"t1"}, .out = "y"},
    },
};
