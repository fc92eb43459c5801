/* L1/58 58_conv_transposed_3D__asymmetric_input__asymmetric_kernel:
 * y = F.conv_transpose3d(x, w): 32 -> 16 channels, kernel (3, 5, 7), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_058 = {
    .level = 1,
    .id = 58,
    .name = "58_conv_transposed_3D__asymmetric_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 16, 5},
        {"depth_in", 16, 3},
        {"height_in", 32, 5},
        {"width_in", 64, 7},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth_in", "height_in", "width_in"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose3d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "5", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 5, 7)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, output_padding=0, groups=1, dilation=1"},
    },
};
