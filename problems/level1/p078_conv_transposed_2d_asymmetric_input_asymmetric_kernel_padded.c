/* L1/78 78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__:
 * y = F.conv_transpose2d(x, w): 32 -> 32 channels, kernel (3, 7), padding (1, 3), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_078 = {
    .level = 1,
    .id = 78,
    .name = "78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 32, 3},
        {"out_channels", 32, 5},
        {"height", 512, 5},
        {"width", 1024, 9},
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
        {"kernel_size", "(3, 7)"}, {"stride", "(1, 1)"}, {"padding", "(1, 3)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D,
         .args = {"x", "conv_transpose2d.weight"},
         .out = "y",
         .s = "stride=(1, 1), padding=(1, 3), output_padding=0, groups=1, dilation=1"},
    },
};
