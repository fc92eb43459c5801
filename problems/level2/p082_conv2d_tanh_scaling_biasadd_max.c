/* L2/82 82_Conv2d_Tanh_Scaling_BiasAdd_Max: y = max_pool2d(torch.tanh(conv(x)) * 2.0 + bias, 4). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_082 = {
    .level = 2,
    .id = 82,
    .name = "82_Conv2d_Tanh_Scaling_BiasAdd_Max",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"height", 256, 13},
        {"width", 256, 15},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"scaling_factor", "2.0"}, {"bias_shape", "(out_channels, 1, 1)"}, {"pool_kernel_size", "4"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_TANH, .args = {"conv"}, .out = "th"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"th"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_ADD, .args = {"scaled", "bias"}, .out = "biased"},
        {.op = KBV_OP_MAX_POOL2D, .args = {"biased"}, .out = "y", .s = "kernel_size=4"},
    },
    .notes = "bias is nn.Parameter(torch.randn(out_channels, 1, 1)), one N(0,1) shift per channel. "
             "nn.MaxPool2d(4): stride 4, floor (254 -> 63 at full size, 11x13 -> 2x3 small).",
};
