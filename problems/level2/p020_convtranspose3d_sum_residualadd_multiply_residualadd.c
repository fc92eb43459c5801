/* L2/20 20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd:
 * c = convT(x); o = c.clone().detach(); y = ((c + bias) + o) * o + o,
 * convT = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_020 = {
    .level = 2,
    .id = 20,
    .name = "20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"},
        {"bias_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_CLONE, .args = {"up"}, .out = "original"},
        {.op = KBV_OP_ADD, .args = {"up", "bias"}, .out = "biased"},
        {.op = KBV_OP_ADD, .args = {"biased", "original"}, .out = "res1"},
        {.op = KBV_OP_MUL, .args = {"res1", "original"}, .out = "prod"},
        {.op = KBV_OP_ADD, .args = {"prod", "original"}, .out = "y"},
    },
    .notes = "original_x = x.clone().detach() is a copy of the convolution output (detach only "
             "matters for autograd): y = (2c + bias) * c + c. bias is standard normal "
             "(torch.randn).",
};
