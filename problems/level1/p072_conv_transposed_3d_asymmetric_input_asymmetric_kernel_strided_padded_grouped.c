/* L1/72 72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_:
 * y = F.conv_transpose3d(x, w): 32 -> 32 channels in 4 groups, kernel (3, 5, 7), stride 2,
 * padding (1, 2, 3), output padding 1, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_072 = {
    .level = 1,
    .id = 72,
    .name = "72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_",
    .dims = {{"batch_size", 8, 2}, {"depth", 12, 3}, {"height", 24, 5}, {"width", 48, 5}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "32", "depth", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose3d.weight",
         .dtype = KBV_F32,
         .shape = {"32", "8", "3", "5", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "32"}, {"out_channels", "32"}, {"kernel_size", "(3, 5, 7)"},
        {"stride", "(2, 2, 2)"}, {"padding", "(1, 2, 3)"}, {"output_padding", "(1, 1, 1)"},
        {"groups", "4"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=(2, 2, 2), padding=(1, 2, 3), output_padding=(1, 1, 1), groups=4, "
              "dilation=1"},
    },
    .notes = "The weight is [in_channels, out_channels / groups, *kernel] = [32, 8, 3, 5, 7]; "
             "PyTorch computes its fan-in from dim 1: 8 * 105 = 840.",
};
