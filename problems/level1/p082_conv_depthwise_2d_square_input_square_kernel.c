/* L1/82 82_conv_depthwise_2D_square_input_square_kernel:
 * y = F.conv2d(x, w, groups=64): depthwise, 64 channels, kernel 3, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_082 = {
    .level = 1,
    .id = 82,
    .name = "82_conv_depthwise_2D_square_input_square_kernel",
    .dims = {{"batch_size", 16, 2}, {"height", 512, 7}, {"width", 512, 9}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "64", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"64", "1", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_channels", "64"}, {"kernel_size", "3"}, {"stride", "1"}, {"padding", "0"}},
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=64"},
    },
    .notes = "Depthwise: PyTorch runs fp32 depthwise convolutions in its own kernel "
             "(conv_depthwise2d), not cuDNN, so no mode uses TF32.",
};
