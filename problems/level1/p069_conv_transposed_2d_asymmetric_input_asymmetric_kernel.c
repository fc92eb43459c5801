/* L1/69 69_conv_transposed_2D__asymmetric_input__asymmetric_kernel:
 * y = F.conv_transpose2d(x, w): 64 -> 128 channels, kernel (3, 5), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_069 = {
    .level = 1,
    .id = 69,
    .name = "69_conv_transposed_2D__asymmetric_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height_in", 128, 5},
        {"width_in", 256, 7},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height_in", "width_in"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose2d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "5"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 5)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D,
         .args = {"x", "conv_transpose2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
