/* L2/6 6_Conv3d_Softmax_MaxPool_MaxPool: y = max_pool3d(max_pool3d(softmax(conv(x), dim=1), 2), 2),
 * conv = nn.Conv3d(3, 16, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_006 = {
    .level = 2,
    .id = 6,
    .name = "6_Conv3d_Softmax_MaxPool_MaxPool",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 9},
        {"height", 32, 11},
        {"width", 32, 13},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"pool_kernel_size", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_SOFTMAX, .args = {"conv_out"}, .out = "probs", .i = {1}},
        {.op = KBV_OP_MAX_POOL3D, .args = {"probs"}, .out = "pool1", .s = "kernel_size=2"},
        {.op = KBV_OP_MAX_POOL3D, .args = {"pool1"}, .out = "y", .s = "kernel_size=2"},
    },
    .notes = "Softmax over the 16 channels, then two 2x2x2 max pools (stride = kernel size, odd "
             "sizes floored: 14x30x30 -> 7x15x15 -> 3x7x7).",
};
