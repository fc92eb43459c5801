/* L2/73 73_Conv2d_BatchNorm_Scaling: y = bn(conv(x)) * 2.0, training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_073 = {
    .level = 2,
    .id = 73,
    .name = "73_Conv2d_BatchNorm_Scaling",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"height", 128, 9},
        {"width", 128, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "bn.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "bn.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
        {.name = "bn.running_mean", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "bn.running_var", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"scaling_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_BATCH_NORM, .args = {"conv", "bn.weight", "bn.bias"}, .out = "bn",
         .f = {1e-5, 0.1}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"bn"}, .out = "y", .f = {2.0}},
    },
    .notes = "BatchNorm2d in training mode: batch statistics (biased variance, eps 1e-5); the "
             "running-stat update never affects the output and the rendering leaves it out. The "
             "batch mean removes the conv bias exactly, so conv.bias does not affect the output "
             "(up to rounding).",
};
