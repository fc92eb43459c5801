/* L1/65 65_conv_transposed_2D__square_input__asymmetric_kernel:
 * y = F.conv_transpose2d(x, w): 64 -> 64 channels, kernel (3, 7), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_065 = {
    .level = 1,
    .id = 65,
    .name = "65_conv_transposed_2D__square_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 5},
        {"height", 512, 5},
        {"width", 512, 7},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose2d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 7)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D,
         .args = {"x", "conv_transpose2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
