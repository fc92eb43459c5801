/* L1/79 79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__:
 * y = F.conv_transpose1d(x, w): 32 -> 64 channels, kernel 3, stride 2, padding 1, dilation 2, no
 * bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_079 = {
    .level = 1,
    .id = 79,
    .name = "79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"length", 131072, 13},
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
        {"stride", "2"}, {"padding", "1"}, {"dilation", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE1D,
         .args = {"x", "conv1d_transpose.weight"},
         .out = "y",
         .s = "stride=2, padding=1, output_padding=0, groups=1, dilation=2"},
    },
};
