/* L1/56 56_conv_standard_2D__asymmetric_input__asymmetric_kernel:
 * y = F.conv2d(x, w): 64 -> 128 channels, kernel (5, 7), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_056 = {
    .level = 1,
    .id = 56,
    .name = "56_conv_standard_2D__asymmetric_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 512, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "5", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(5, 7)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
};
