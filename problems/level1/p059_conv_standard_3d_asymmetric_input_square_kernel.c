/* L1/59 59_conv_standard_3D__asymmetric_input__square_kernel:
 * y = F.conv3d(x, w): 3 -> 64 channels, kernel (3, 3, 1), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_059 = {
    .level = 1,
    .id = 59,
    .name = "59_conv_standard_3D__asymmetric_input__square_kernel",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 3, 3},
        {"out_channels", 64, 5},
        {"height", 256, 7},
        {"width", 256, 9},
        {"depth", 10, 5},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height", "width", "depth"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv3d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3", "3", "1"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D,
         .args = {"x", "conv3d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
    .notes = "The module builds nn.Conv3d with kernel_size=(kernel_size, kernel_size, 1): the last "
             "spatial dim is not convolved.",
};
