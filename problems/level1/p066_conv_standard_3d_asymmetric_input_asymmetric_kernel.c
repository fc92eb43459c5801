/* L1/66 66_conv_standard_3D__asymmetric_input__asymmetric_kernel:
 * y = F.conv3d(x, w): 3 -> 64 channels, kernel (3, 5, 7), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_066 = {
    .level = 1,
    .id = 66,
    .name = "66_conv_standard_3D__asymmetric_input__asymmetric_kernel",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 3, 3},
        {"out_channels", 64, 5},
        {"depth", 16, 5},
        {"height", 128, 9},
        {"width", 128, 11},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv3d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3", "5", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 5, 7)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D,
         .args = {"x", "conv3d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
};
