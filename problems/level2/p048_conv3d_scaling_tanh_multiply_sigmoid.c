/* L2/48 48_Conv3d_Scaling_Tanh_Multiply_Sigmoid: y = sigmoid(tanh(conv(x) * scaling_factor) * bias),
 * conv = nn.Conv3d(3, 16, 3); scaling_factor and bias are Parameters of shape (16, 1, 1, 1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_048 = {
    .level = 2,
    .id = 48,
    .name = "48_Conv3d_Scaling_Tanh_Multiply_Sigmoid",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 5},
        {"height", 64, 7},
        {"width", 64, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "scaling_factor", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"scaling_factor", "2"}, {"bias_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MUL, .args = {"conv_out", "scaling_factor"}, .out = "scaled"},
        {.op = KBV_OP_TANH, .args = {"scaled"}, .out = "t"},
        {.op = KBV_OP_MUL, .args = {"t", "bias"}, .out = "prod"},
        {.op = KBV_OP_SIGMOID, .args = {"prod"}, .out = "y"},
    },
    .notes = "The constructor argument scaling_factor (2) is unused: the Parameter of that name "
             "is torch.randn(bias_shape), as is bias, both standard normal per channel; bias "
             "multiplies, it is not added.",
};
