/* L1/67 67_conv_standard_1D: y = F.conv1d(x, w): 64 -> 128 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_067 = {
    .level = 1,
    .id = 67,
    .name = "67_conv_standard_1D",
    .dims = {
        {"batch_size", 32, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"length", 131072, 13},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "length"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv1d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
    },
    .nodes = {
        {.op = KBV_OP_CONV1D,
         .args = {"x", "conv1d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
};
