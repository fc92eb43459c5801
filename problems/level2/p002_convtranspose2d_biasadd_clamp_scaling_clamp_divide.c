/* L2/2 2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide:
 * y = clamp(clamp(convT(x) + bias, 0, 1) * 2.0, 0, 1) / 2.0,
 * convT = nn.ConvTranspose2d(64, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_002 = {
    .level = 2,
    .id = 2,
    .name = "2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 4},
        {"height", 128, 5},
        {"width", 128, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"},
        {"bias_shape", "(out_channels, 1, 1)"}, {"scaling_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_ADD, .args = {"up", "bias"}, .out = "biased"},
        {.op = KBV_OP_CLAMP, .args = {"biased"}, .out = "clamped", .f = {0.0, 1.0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"clamped"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_CLAMP, .args = {"scaled"}, .out = "clamped2", .f = {0.0, 1.0}},
        {.op = KBV_OP_DIV_SCALAR, .args = {"clamped2"}, .out = "y", .f = {2.0}},
    },
    .notes = "The output lies in [0, 0.5]: the second clamp cuts the doubled values at 1, the "
             "division halves them, and many elements are exactly 0 or 0.5 (clamped). bias is "
             "standard normal (torch.randn).",
};
