/* L2/96 96_ConvTranspose3d_Multiply_Max_GlobalAvgPool_Clamp:
 * y = torch.clamp(adaptive_avg_pool3d(max_pool3d(conv_transpose(x) * 0.5, 2), 1), 0, 1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_096 = {
    .level = 2,
    .id = 96,
    .name = "96_ConvTranspose3d_Multiply_Max_GlobalAvgPool_Clamp",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
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
        {"stride", "2"}, {"padding", "1"}, {"scale", "0.5"}, {"maxpool_kernel_size", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"ct"}, .out = "scaled", .f = {0.5}},
        {.op = KBV_OP_MAX_POOL3D, .args = {"scaled"}, .out = "pooled", .s = "kernel_size=2"},
        {.op = KBV_OP_ADAPTIVE_AVG_POOL3D, .args = {"pooled"}, .out = "avg",
         .s = "output_size=(1, 1, 1)"},
        {.op = KBV_OP_CLAMP, .args = {"avg"}, .out = "y", .f = {0.0, 1.0}},
    },
    .notes = "clamp_min = 0 and clamp_max = 1 are Python ints set in __init__ (not constructor "
             "arguments). nn.MaxPool3d(2): stride 2, floor (31 -> 15 at full size: the last "
             "plane falls out). The output is one value per (sample, channel), within "
             "[0.0006, 0.095] at full size on the base draw (measured in PyTorch): the clamp "
             "does not bind there.",
};
