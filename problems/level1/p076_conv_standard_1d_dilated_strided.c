/* L1/76 76_conv_standard_1D_dilated_strided__:
 * y = F.conv1d(x, w): 64 -> 128 channels, kernel 3, stride 3, dilation 4, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_076 = {
    .level = 1,
    .id = 76,
    .name = "76_conv_standard_1D_dilated_strided__",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"length", 524280, 31},
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
        {"stride", "3"}, {"dilation", "4"},
    },
    .nodes = {
        {.op = KBV_OP_CONV1D,
         .args = {"x", "conv1d.weight"},
         .out = "y",
         .s = "stride=3, padding=0, dilation=4, groups=1"},
    },
};
