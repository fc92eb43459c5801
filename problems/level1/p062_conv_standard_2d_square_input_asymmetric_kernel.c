/* L1/62 62_conv_standard_2D__square_input__asymmetric_kernel:
 * y = F.conv2d(x, w): 32 -> 64 channels, kernel (5, 9), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_062 = {
    .level = 1,
    .id = 62,
    .name = "62_conv_standard_2D__square_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"height", 512, 9},
        {"width", 512, 13},
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
         .shape = {"out_channels", "in_channels", "5", "9"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(5, 9)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
};
