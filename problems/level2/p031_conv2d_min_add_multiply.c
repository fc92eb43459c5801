/* L2/31 31_Conv2d_Min_Add_Multiply: y = (torch.min(conv(x), torch.tensor(0.5)) + bias) * 2.0,
 * conv = nn.Conv2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_031 = {
    .level = 2,
    .id = 31,
    .name = "31_Conv2d_Min_Add_Multiply",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 128, 9},
        {"width", 128, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"constant_value", "0.5"}, {"bias_shape", "(out_channels, 1, 1)"},
        {"scaling_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MIN_SCALAR, .args = {"conv_out"}, .out = "capped", .f = {0.5}},
        {.op = KBV_OP_ADD, .args = {"capped", "bias"}, .out = "biased"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"biased"}, .out = "y", .f = {2.0}},
    },
    .notes = "torch.min(x, torch.tensor(0.5)) is the elementwise minimum with a 0-dim tensor "
             "made in forward(). bias is standard normal (torch.randn).",
};
