/* L2/46 46_Conv2d_Subtract_Tanh_Subtract_AvgPool: y = avg_pool2d(tanh(conv(x) - 0.5) - 0.2, 2),
 * conv = nn.Conv2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_046 = {
    .level = 2,
    .id = 46,
    .name = "46_Conv2d_Subtract_Tanh_Subtract_AvgPool",
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
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"subtract1_value", "0.5"}, {"subtract2_value", "0.2"}, {"kernel_size_pool", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_SUB_SCALAR, .args = {"conv_out"}, .out = "s1", .f = {0.5}},
        {.op = KBV_OP_TANH, .args = {"s1"}, .out = "t"},
        {.op = KBV_OP_SUB_SCALAR, .args = {"t"}, .out = "s2", .f = {0.2}},
        {.op = KBV_OP_AVG_POOL2D, .args = {"s2"}, .out = "y", .s = "kernel_size=2"},
    },
    .notes = "Odd conv output sizes are floored by the pool: 126 -> 63 at full size.",
};
