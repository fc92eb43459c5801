/* L2/44 44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean:
 * y = torch.mean(torch.mean(convT(x) * 0.5, dim=[2, 3], keepdim=True), dim=[2, 3], keepdim=True),
 * convT = nn.ConvTranspose2d(64, 128, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_044 = {
    .level = 2,
    .id = 44,
    .name = "44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 128, 5},
        {"width", 128, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"}, {"multiplier", "0.5"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"up"}, .out = "scaled", .f = {0.5}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"scaled"}, .out = "avg1", .i = {(1 << 2) | (1 << 3), 1}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"avg1"}, .out = "y", .i = {(1 << 2) | (1 << 3), 1}},
    },
    .notes = "Output [batch, 128, 1, 1]; the second mean acts on a 1 x 1 plane (an identity).",
};
