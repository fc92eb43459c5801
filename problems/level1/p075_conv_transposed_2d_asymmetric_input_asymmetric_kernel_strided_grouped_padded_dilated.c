/* L1/75 75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__:
 * y = F.conv_transpose2d(x, w): 32 -> 64 channels in 4 groups, kernel (3, 5), stride (2, 3),
 * padding (1, 2), dilation (2, 1), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_075 = {
    .level = 1,
    .id = 75,
    .name = "75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__",
    .dims = {{"batch_size", 16, 2}, {"height", 128, 5}, {"width", 256, 7}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "32", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose2d.weight",
         .dtype = KBV_F32,
         .shape = {"32", "16", "3", "5"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "32"}, {"out_channels", "64"}, {"kernel_size", "(3, 5)"},
        {"stride", "(2, 3)"}, {"padding", "(1, 2)"}, {"dilation", "(2, 1)"}, {"groups", "4"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D,
         .args = {"x", "conv_transpose2d.weight"},
         .out = "y",
         .s = "stride=(2, 3), padding=(1, 2), output_padding=0, groups=4, dilation=(2, 1)"},
    },
    .notes = "The weight is [in_channels, out_channels / groups, *kernel] = [32, 16, 3, 5]; "
             "PyTorch computes its fan-in from dim 1: 16 * 15 = 240.",
};
