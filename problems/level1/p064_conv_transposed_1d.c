/* L1/64 64_conv_transposed_1D:
 * y = F.conv_transpose1d(x, w): 128 -> 128 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_064 = {
    .level = 1,
    .id = 64,
    .name = "64_conv_transposed_1D",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 128, 3},
        {"out_channels", 128, 5},
        {"length", 65536, 11},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "length"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv1d_transpose.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE1D,
         .args = {"x", "conv1d_transpose.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
