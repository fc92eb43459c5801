/* L2/72 72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool:
 * y = avg_pool3d(avg_pool3d(batch_norm(conv_transpose(x)), 2), 2), training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_072 = {
    .level = 2,
    .id = 72,
    .name = "72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 32, 3},
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
        {.name = "batch_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES},
        {.name = "batch_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS},
        {.name = "batch_norm.running_mean", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "batch_norm.running_var", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"bias_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1"},
        {.op = KBV_OP_BATCH_NORM, .args = {"ct", "batch_norm.weight", "batch_norm.bias"},
         .out = "bn", .f = {1e-5, 0.1}},
        {.op = KBV_OP_AVG_POOL3D, .args = {"bn"}, .out = "pool1", .s = "kernel_size=2"},
        {.op = KBV_OP_AVG_POOL3D, .args = {"pool1"}, .out = "y", .s = "kernel_size=2"},
    },
    .notes = "BatchNorm3d in training mode: batch statistics per channel over (N, D, H, W), "
             "biased variance, eps 1e-5; the running-stat update never affects the output and the "
             "rendering leaves it out. bias_shape is passed to the constructor but unused. "
             "nn.AvgPool3d(kernel_size=2): stride 2, floor; the small 5x9x13 output pools to "
             "2x4x6, then 1x2x3.",
};
