/* L2/54 54_Conv2d_Multiply_LeakyReLU_GELU: y = gelu(leaky_relu(conv(x) * multiplier, 0.01)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_054 = {
    .level = 2,
    .id = 54,
    .name = "54_Conv2d_Multiply_LeakyReLU_GELU",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 5},
        {"height", 256, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "multiplier", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"},
         .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"multiplier_shape", "(out_channels, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_MUL, .args = {"conv", "multiplier"}, .out = "scaled"},
        {.op = KBV_OP_LEAKY_RELU, .args = {"scaled"}, .out = "lr", .f = {0.01}},
        {.op = KBV_OP_GELU, .args = {"lr"}, .out = "y"},
    },
    .notes = "multiplier is nn.Parameter(torch.randn(out_channels, 1, 1)): one N(0,1) factor per "
             "channel, broadcast over the spatial dims; nn.LeakyReLU() has slope 0.01.",
};
