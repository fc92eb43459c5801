/* L2/24 24_Conv3d_Min_Softmax: y = softmax(torch.min(conv(x), dim=2)[0], dim=1),
 * conv = nn.Conv3d(3, 24, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_024 = {
    .level = 2,
    .id = 24,
    .name = "24_Conv3d_Min_Softmax",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 24, 5},
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
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"dim", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MIN, .args = {"conv_out"}, .out = "depth_min", .i = {2, 0}},
        {.op = KBV_OP_SOFTMAX, .args = {"depth_min"}, .out = "y", .i = {1}},
    },
    .notes = "The minimum over depth (dim 2) drops that dim: output [batch, 24, H - 2, W - 2], a "
             "softmax over the channels.",
};
