/* L2/100 100_ConvTranspose3d_Clamp_Min_Divide: y = torch.clamp(conv_transpose(x), min=-1.0) / 2.0. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_100 = {
    .level = 2,
    .id = 100,
    .name = "100_ConvTranspose3d_Clamp_Min_Divide",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"depth", 24, 3},
        {"height", 48, 5},
        {"width", 48, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"min_value", "-1.0"}, {"divisor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1"},
        {.op = KBV_OP_CLAMP_MIN, .args = {"ct"}, .out = "clamped", .f = {-1.0}},
        {.op = KBV_OP_DIV_SCALAR, .args = {"clamped"}, .out = "y", .f = {2.0}},
    },
    .notes = "The output is 3.24 GiB at full size (the largest of level 2's second half): the "
             "problem is bound by writing it. The transposed convolution's output has a standard "
             "deviation of ~0.085 at full size, so the clamp at -1 does not bind on the base "
             "draw (measured in PyTorch).",
};
