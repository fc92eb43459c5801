/* L2/90 90_Conv3d_LeakyReLU_Sum_Clamp_GELU:
 * y = F.gelu(torch.clamp(F.leaky_relu(conv(x), 0.2) + sum_tensor, -1.0, 1.0)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_090 = {
    .level = 2,
    .id = 90,
    .name = "90_Conv3d_LeakyReLU_Sum_Clamp_GELU",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"depth", 16, 5},
        {"height", 64, 7},
        {"width", 64, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "sum_tensor", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"},
         .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"sum_tensor_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_LEAKY_RELU, .args = {"conv"}, .out = "lr", .f = {0.2}},
        {.op = KBV_OP_ADD, .args = {"lr", "sum_tensor"}, .out = "summed"},
        {.op = KBV_OP_CLAMP, .args = {"summed"}, .out = "clamped", .f = {-1.0, 1.0}},
        {.op = KBV_OP_GELU, .args = {"clamped"}, .out = "y"},
    },
    .notes = "sum_tensor is an N(0,1) Parameter per channel; channels whose shift is beyond +-1 "
             "clamp to a constant (gelu(1) or gelu(-1)) almost everywhere, so part of the output "
             "does not depend on the input.",
};
