/* L1/87 87_conv_pointwise_2D: y = F.conv2d(x, w): pointwise (1x1), 64 -> 128 channels, no bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_087 = {
    .level = 1,
    .id = 87,
    .name = "87_conv_pointwise_2D",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 1024, 7},
        {"width", 1024, 9},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv1d.weight",
         .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "1", "1"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}},
    .nodes = {
        {.op = KBV_OP_CONV2D,
         .args = {"x", "conv1d.weight"},
         .out = "y",
         .s = "stride=1, padding=0, dilation=1, groups=1"},
    },
    .notes = "The module names its nn.Conv2d attribute conv1d. The output has 2^31 elements, one "
             "more than cuDNN's 32-bit indexing allows: PyTorch (and kbv) split the batch.",
};
