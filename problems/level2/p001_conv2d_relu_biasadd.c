/* L2/1 1_Conv2D_ReLU_BiasAdd: y = relu(conv(x)) + bias, conv = nn.Conv2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_001 = {
    .level = 2,
    .id = 1,
    .name = "1_Conv2D_ReLU_BiasAdd",
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
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"bias_shape", "(out_channels, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_RELU, .args = {"conv_out"}, .out = "act"},
        {.op = KBV_OP_ADD, .args = {"act", "bias"}, .out = "y"},
    },
    .notes = "bias is nn.Parameter(torch.randn(bias_shape)): standard normal, one per channel, "
             "added after the ReLU (so outputs can be negative).",
};
