/* L2/13 13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling:
 * y = tanh(softmax(convT(x).mean(dim=2, keepdim=True) + bias, dim=1)) * 2.0,
 * convT = nn.ConvTranspose3d(16, 64, 3, stride=1, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_013 = {
    .level = 2,
    .id = 13,
    .name = "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 16, 3},
        {"out_channels", 64, 5},
        {"depth", 32, 5},
        {"height", 128, 7},
        {"width", 128, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"1", "out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "1"}, {"padding", "1"}, {"scaling_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=1, padding=1"},
        {.op = KBV_OP_MEAN, .args = {"up"}, .out = "avg", .i = {2, 1}},
        {.op = KBV_OP_ADD, .args = {"avg", "bias"}, .out = "biased"},
        {.op = KBV_OP_SOFTMAX, .args = {"biased"}, .out = "probs", .i = {1}},
        {.op = KBV_OP_TANH, .args = {"probs"}, .out = "t"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"t"}, .out = "y", .f = {2.0}},
    },
    .notes = "Output [batch, 64, 1, H, W]: the depth mean keeps a size-1 dim. bias is standard "
             "normal (torch.randn(1, out_channels, 1, 1, 1)).",
};
