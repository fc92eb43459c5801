/* L2/8 8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum:
 * y = sum(adaptive_avg_pool3d(max_pool3d(conv(x) / 2.0, (2, 2, 2)), (1, 1, 1)) + bias, dim=1),
 * conv = nn.Conv3d(8, 16, (3, 3, 3)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_008 = {
    .level = 2,
    .id = 8,
    .name = "8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum",
    .dims = {
        {"batch_size", 128, 3},
        {"in_channels", 8, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 7},
        {"height", 64, 9},
        {"width", 64, 11},
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
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 3, 3)"}, {"divisor", "2.0"}, {"pool_size", "(2, 2, 2)"},
        {"bias_shape", "(out_channels, 1, 1, 1)"}, {"sum_dim", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=0"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"conv_out"}, .out = "divided", .f = {2.0}},
        {.op = KBV_OP_MAX_POOL3D, .args = {"divided"}, .out = "pooled", .s = "kernel_size=(2, 2, 2)"},
        {.op = KBV_OP_ADAPTIVE_AVG_POOL3D, .args = {"pooled"}, .out = "avg", .s = "output_size=(1, 1, 1)"},
        {.op = KBV_OP_ADD, .args = {"avg", "bias"}, .out = "biased"},
        {.op = KBV_OP_SUM, .args = {"biased"}, .out = "y", .i = {1, 0}},
    },
    .notes = "Output [batch, 1, 1, 1]: per sample, the sum over channels of (mean of the max-pooled "
             "conv / 2) + bias; the bias (standard normal, torch.randn) contributes the same "
             "constant sum to every sample.",
};
