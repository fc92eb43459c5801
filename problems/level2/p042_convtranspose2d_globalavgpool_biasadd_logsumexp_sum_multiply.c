/* L2/42 42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply:
 * m = torch.mean(convT(x), dim=(2, 3), keepdim=True) + bias;
 * y = torch.sum(torch.logsumexp(m, dim=1, keepdim=True), dim=(2, 3)) * 10.0,
 * convT = nn.ConvTranspose2d(64, 128, 3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_042 = {
    .level = 2,
    .id = 42,
    .name = "42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 512, 7},
        {"width", 512, 9},
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
        {"bias_shape", "(out_channels, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=1, padding=0"},
        {.op = KBV_OP_MEAN_DIMS, .args = {"up"}, .out = "avg", .i = {(1 << 2) | (1 << 3), 1}},
        {.op = KBV_OP_ADD, .args = {"avg", "bias"}, .out = "biased"},
        {.op = KBV_OP_LOGSUMEXP, .args = {"biased"}, .out = "lse", .i = {1, 1}},
        {.op = KBV_OP_SUM_DIMS, .args = {"lse"}, .out = "summed", .i = {(1 << 2) | (1 << 3), 0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"summed"}, .out = "y", .f = {10.0}},
    },
    .notes = "Output [batch, 1]; the sum over dims (2, 3) acts on size-1 dims (an identity). "
             "Nearly input-independent, though the paper keeps it: bias (standard normal, "
             "torch.randn) dominates the channel means, and the output (about 55) moves with the "
             "input far less than allclose's tolerance there (0.056). Measured with KernelBench's "
             "module at its channel counts and 12 x 12 inputs: two independent inputs gave outputs "
             "within allclose(1e-3, 1e-3) of each other under D1-D4 (a constant passes). kbv's "
             "small size, with 5 channels, does not show it.",
};
