/* L1/84 84_conv_depthwise_2D_asymmetric_input_square_kernel:
 * y = F.conv2d(x, w, groups=128): depthwise, 128 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_084 = {
    .level = 1,
    .id = 84,
    .name = "84_conv_depthwise_2D_asymmetric_input_square_kernel",
    .dims = {{"batch_size", 64, 2}, {"height_in", 256, 5}, {"width_in", 512, 7}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "128", "height_in", "width_in"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"128", "1", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "128"}, {"out_channels", "128"}, {"kernel_size", "3"}, {"stride", "1"},
        {"padding", "0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=128"},
    },
    .notes = "Depthwise: PyTorch runs fp32 depthwise convolutions in its own kernel, not cuDNN.",
};
