/* L1/86 86_conv_depthwise_separable_2D:
 * h = depthwise(x) (3x3, padding 1, groups 64); y = pointwise(h) (1x1, 64 -> 128), no biases. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_086 = {
    .level = 1,
    .id = 86,
    .name = "86_conv_depthwise_separable_2D",
    .dims = {{"batch_size", 16, 2}, {"height", 512, 7}, {"width", 512, 9}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "64", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "depthwise.weight",
         .dtype = KBV_F32,
         .shape = {"64", "1", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "pointwise.weight",
         .dtype = KBV_F32,
         .shape = {"128", "64", "1", "1"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "64"}, {"out_channels", "128"}, {"kernel_size", "3"}, {"stride", "1"},
        {"padding", "1"}, {"dilation", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "depthwise.weight"},
         .out = "h",
         .s = "stride=1, padding=1, dilation=1, groups=64"},
        {.op = KBV_OP_CONV2D,
         .args = {"h", "pointwise.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
    .notes = "Depthwise: PyTorch runs the fp32 depthwise step in its own kernel and the pointwise "
             "one in cuDNN (TF32 where allowed).",
};
