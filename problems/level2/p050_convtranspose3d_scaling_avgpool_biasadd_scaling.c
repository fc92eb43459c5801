/* L2/50 50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling:
 * y = (avg_pool3d(convT(x) * scale1, 2) + bias) * scale2,
 * convT = nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_050 = {
    .level = 2,
    .id = 50,
    .name = "50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "scale1", .dtype = KBV_F32, .shape = {NULL}, .init = KBV_INIT_CONST, .value = 0.5},
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "scale2", .dtype = KBV_F32, .shape = {NULL}, .init = KBV_INIT_CONST, .value = 1.0},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"scale1", "0.5"}, {"scale2", "1.0"},
        {"bias_shape", "(out_channels, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1"},
        {.op = KBV_OP_MUL, .args = {"up", "scale1"}, .out = "scaled"},
        {.op = KBV_OP_AVG_POOL3D, .args = {"scaled"}, .out = "pooled", .s = "kernel_size=2"},
        {.op = KBV_OP_ADD, .args = {"pooled", "bias"}, .out = "biased"},
        {.op = KBV_OP_MUL, .args = {"biased", "scale2"}, .out = "y"},
    },
    .notes = "scale1 and scale2 are 0-dim Parameters, nn.Parameter(torch.tensor(0.5)) and "
             "nn.Parameter(torch.tensor(1.0)); bias is standard normal (torch.randn). Output size "
             "2 * D - 1, floored by the pool: 31 -> 15 at full size.",
};
