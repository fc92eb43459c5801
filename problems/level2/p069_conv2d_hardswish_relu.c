/* L2/69 69_Conv2d_HardSwish_ReLU: y = torch.relu(F.hardswish(conv(x))). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_069 = {
    .level = 2,
    .id = 69,
    .name = "69_Conv2d_HardSwish_ReLU",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
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
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_HARDSWISH, .args = {"conv"}, .out = "hs"},
        {.op = KBV_OP_RELU, .args = {"hs"}, .out = "y"},
    },
    .notes = "F.hardswish is negative on (-3, 0); the ReLU then zeroes every element with a "
             "negative convolution output.",
};
