/* L1/77 77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__:
 * y = F.conv_transpose3d(x, w): 32 -> 64 channels, kernel 3, stride 2, padding 1, dilation 2, no
 * bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_077 = {
    .level = 1,
    .id = 77,
    .name = "77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
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
        {"stride", "2"}, {"padding", "1"}, {"dilation", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=2, padding=1, output_padding=0, groups=1, dilation=2"},
    },
};
