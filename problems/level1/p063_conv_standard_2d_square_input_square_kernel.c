/* L1/63 63_conv_standard_2D__square_input__square_kernel:
 * y = F.conv2d(x, w): 16 -> 128 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_063 = {
    .level = 1,
    .id = 63,
    .name = "63_conv_standard_2D__square_input__square_kernel",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 16, 3},
        {"out_channels", 128, 5},
        {"height", 1024, 7},
        {"width", 1024, 9},
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
         .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
};
