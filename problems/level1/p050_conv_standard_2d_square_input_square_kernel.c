/* L1/50 50_conv_standard_2D__square_input__square_kernel:
 * y = conv1(x), conv1 = nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2) with bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_050 = {
    .level = 1,
    .id = 50,
    .name = "50_conv_standard_2D__square_input__square_kernel",
    .dims = {{"batch_size", 256, 2}, {"height", 224, 23}, {"width", 224, 27}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "3", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv1.weight",
         .dtype = KBV_F32,
         .shape = {"96", "3", "11", "11"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv1.bias",
         .dtype = KBV_F32,
         .shape = {"96"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"num_classes", "1000"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS,
         .args = {"x", "conv1.weight", "conv1.bias"},
         .out = "y",
         .s = "stride=4, padding=2"},
    },
    .notes = "AlexNet's first layer. num_classes is passed to the constructor but unused; unlike "
             "most level-1 convolutions this one has a bias.",
};
