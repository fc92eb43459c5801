/* L2/87 87_Conv2d_Subtract_Subtract_Mish: y = F.mish(conv(x) - 0.5 - 0.2). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_087 = {
    .level = 2,
    .id = 87,
    .name = "87_Conv2d_Subtract_Subtract_Mish",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"height", 256, 9},
        {"width", 256, 11},
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
        {"subtract_value_1", "0.5"}, {"subtract_value_2", "0.2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_SUB_SCALAR, .args = {"conv"}, .out = "s1", .f = {0.5}},
        {.op = KBV_OP_SUB_SCALAR, .args = {"s1"}, .out = "s2", .f = {0.2}},
        {.op = KBV_OP_MISH, .args = {"s2"}, .out = "y"},
    },
    .notes = "Two subtractions, as the module runs them ((x - 0.5) - 0.2 rounds differently "
             "from x - 0.7 in float32; the difference is far below the tolerances).",
};
