/* L1/85 85_conv_depthwise_2D_asymmetric_input_asymmetric_kernel:
 * y = F.conv2d(x, w, groups=128): depthwise, 128 channels, kernel (3, 7), no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_085 = {
    .level = 1,
    .id = 85,
    .name = "85_conv_depthwise_2D_asymmetric_input_asymmetric_kernel",
    .dims = {{"batch_size", 32, 2}, {"height", 128, 5}, {"width", 256, 9}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "128", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv2d.weight",
         .dtype = KBV_F32,
         .shape = {"128", "1", "3", "7"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "128"}, {"out_channels", "128"}, {"kernel_size_h", "3"},
        {"kernel_size_w", "7"}, {"stride_h", "1"}, {"stride_w", "1"}, {"padding_h", "0"},
        {"padding_w", "0"}, {"dilation_h", "1"}, {"dilation_w", "1"}, {"groups", "128"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv2d.weight"},
         .out = "y",
         .s = "stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=128"},
    },
    .notes = "The module uses in_channels as its output channels and groups=in_channels regardless "
             "of the out_channels and groups arguments. Depthwise: PyTorch runs fp32 depthwise "
             "convolutions in its own kernel, not cuDNN.",
};
