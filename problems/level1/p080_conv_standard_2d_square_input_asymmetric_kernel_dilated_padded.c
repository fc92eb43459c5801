/* L1/80 80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__:
 * y = F.conv2d(x, w): 32 -> 64 channels, kernel (5, 9), padding (2, 4), dilation (2, 3), no
 * bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_080 = {
    .level = 1,
    .id = 80,
    .name = "80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__",
    .dims = {
        {"batch_size", 8, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"height", 512, 11},
        {"width", 512, 29},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "5", "9"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(5, 9)"}, {"stride", "1"}, {"padding", "(2, 4)"}, {"dilation", "(2, 3)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=(2, 4), dilation=(2, 3), groups=1"},
    },
};
