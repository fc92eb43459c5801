/* L1/70 70_conv_transposed_3D__asymmetric_input__square_kernel:
 * y = F.conv_transpose3d(x, w): 48 -> 24 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_070 = {
    .level = 1,
    .id = 70,
    .name = "70_conv_transposed_3D__asymmetric_input__square_kernel",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 48, 3},
        {"out_channels", 24, 5},
        {"depth", 96, 3},
        {"height", 96, 5},
        {"width", 96, 7},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose3d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
