/* L2/71 71_Conv2d_Divide_LeakyReLU: y = F.leaky_relu(conv(x) / 2, negative_slope=0.01). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_071 = {
    .level = 2,
    .id = 71,
    .name = "71_Conv2d_Divide_LeakyReLU",
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
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"divisor", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"conv"}, .out = "div", .f = {2.0}},
        {.op = KBV_OP_LEAKY_RELU, .args = {"div"}, .out = "y", .f = {0.01}},
    },
    .notes = "divisor is the Python int 2: x / 2 is a true division of the float tensor.",
};
