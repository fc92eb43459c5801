/* L1/68 68_conv_transposed_3D__square_input__asymmetric_kernel:
 * y = F.conv_transpose3d(x, w): 32 -> 64 channels, kernel (3, 5, 5), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_068 = {
    .level = 1,
    .id = 68,
    .name = "68_conv_transposed_3D__square_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 64, 3},
        {"width", 64, 5},
        {"height", 64, 7},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "width", "height"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose3d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "5", "5"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 5, 5)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
