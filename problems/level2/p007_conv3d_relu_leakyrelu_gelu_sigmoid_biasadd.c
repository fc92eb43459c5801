/* L2/7 7_Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd:
 * y = sigmoid(gelu(leaky_relu(relu(conv(x)), 0.01))) + bias, conv = nn.Conv3d(8, 32, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_007 = {
    .level = 2,
    .id = 7,
    .name = "7_Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 8, 3},
        {"out_channels", 32, 5},
        {"depth", 32, 5},
        {"height", 64, 7},
        {"width", 64, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"bias_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_RELU, .args = {"conv_out"}, .out = "r"},
        {.op = KBV_OP_LEAKY_RELU, .args = {"r"}, .out = "lr", .f = {0.01}},
        {.op = KBV_OP_GELU, .args = {"lr"}, .out = "g"},
        {.op = KBV_OP_SIGMOID, .args = {"g"}, .out = "s"},
        {.op = KBV_OP_ADD, .args = {"s", "bias"}, .out = "y"},
    },
    .notes = "The leaky ReLU after a ReLU sees no negative value (an identity); GELU of a "
             "non-negative value then sigmoid: every element before the bias lies in [0.5, 1). "
             "bias is standard normal (torch.randn).",
};
