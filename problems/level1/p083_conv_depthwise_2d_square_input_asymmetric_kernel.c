/* L1/83 83_conv_depthwise_2D_square_input_asymmetric_kernel:
 * y = F.conv2d(x, w, groups=8): depthwise, 8 channels, kernel (3, 1), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_083 = {
    .level = 1,
    .id = 83,
    .name = "83_conv_depthwise_2D_square_input_asymmetric_kernel",
    .dims = {{"batch_size", 64, 2}, {"height", 512, 7}, {"width", 512, 9}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "8", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"8", "1", "3", "1"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "8"}, {"kernel_size", "3"}, {"stride", "1"}, {"padding", "0"},
        {"dilation", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=8"},
    },
    .notes = "The module builds nn.Conv2d with kernel_size=(kernel_size, 1). Depthwise: PyTorch "
             "runs fp32 depthwise convolutions in its own kernel, not cuDNN.",
};
