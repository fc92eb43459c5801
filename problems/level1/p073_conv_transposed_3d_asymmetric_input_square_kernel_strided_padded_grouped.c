/* L1/73 73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped:
 * y = F.conv_transpose3d(x, w): 32 -> 32 channels, kernel 3, stride 2, padding 1, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_073 = {
    .level = 1,
    .id = 73,
    .name = "73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped",
    .dims = {
        {"batch_size", 4, 2},
        {"in_channels", 32, 3},
        {"out_channels", 32, 5},
        {"depth", 32, 3},
        {"height", 64, 5},
        {"width", 128, 7},
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
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "4"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D,
         .args = {"x", "conv_transpose3d.weight"},
         .out = "y",
         .s = "stride=2, padding=1, output_padding=0, groups=1, dilation=1"},
    },
    .notes = "Despite the name the convolution is not grouped: get_init_inputs() passes groups=4 "
             "positionally into the constructor's output_padding slot, which the module never "
             "uses, so groups=1 and output_padding=0.",
};
