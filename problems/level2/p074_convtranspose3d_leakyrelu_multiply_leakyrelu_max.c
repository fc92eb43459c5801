/* L2/74 74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max:
 * y = max_pool3d(leaky_relu(leaky_relu(conv_transpose(x), 0.2) * multiplier, 0.2), 2). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_074 = {
    .level = 2,
    .id = 74,
    .name = "74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 16, 3},
        {"out_channels", 32, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "multiplier", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"},
         .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"},
        {"multiplier_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_LEAKY_RELU, .args = {"ct"}, .out = "lr1", .f = {0.2}},
        {.op = KBV_OP_MUL, .args = {"lr1", "multiplier"}, .out = "scaled"},
        {.op = KBV_OP_LEAKY_RELU, .args = {"scaled"}, .out = "lr2", .f = {0.2}},
        {.op = KBV_OP_MAX_POOL3D, .args = {"lr2"}, .out = "y", .s = "kernel_size=2"},
    },
    .notes = "One nn.LeakyReLU(0.2) module applied twice. multiplier is "
             "nn.Parameter(torch.randn(out_channels, 1, 1, 1)): one N(0,1) factor per channel; a "
             "negative one flips the channel's sign before the second LeakyReLU. The transposed "
             "convolution doubles each spatial size exactly (output_padding 1); nn.MaxPool3d(2) "
             "halves it again.",
};
