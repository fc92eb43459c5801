/* L1/81 81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__:
 * y = F.conv_transpose2d(x, w): 32 -> 64 channels, kernel 3, stride 5, padding 1, dilation 2, no
 * bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_081 = {
    .level = 1,
    .id = 81,
    .name = "81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"height_in", 64, 3},
        {"width_in", 128, 5},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height_in", "width_in"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose2d.weight",
         .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "5"}, {"padding", "1"}, {"dilation", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D,
         .args = {"x", "conv_transpose2d.weight"},
         .out = "y",
         .s = "stride=5, padding=1, output_padding=0, groups=1, dilation=2"},
    },
    .notes = "Stride 5 with taps 2 apart: output positions 0 and 2 (mod 5) receive no contribution "
             "and are 0.",
};
