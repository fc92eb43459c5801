/* L2/43 43_Conv3d_Max_LogSumExp_ReLU: y = relu(torch.logsumexp(max_pool3d(conv(x), 2, 2), dim=1, keepdim=True)),
 * conv = nn.Conv3d(32, 64, 3, stride=1, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_043 = {
    .level = 2,
    .id = 43,
    .name = "43_Conv3d_Max_LogSumExp_ReLU",
    .dims = {
        {"batch_size", 4, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 32, 5},
        {"height", 128, 7},
        {"width", 128, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "1"}, {"padding", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv_out", .s = "stride=1, padding=1"},
        {.op = KBV_OP_MAX_POOL3D, .args = {"conv_out"}, .out = "pooled", .s = "kernel_size=2, stride=2"},
        {.op = KBV_OP_LOGSUMEXP, .args = {"pooled"}, .out = "lse", .i = {1, 1}},
        {.op = KBV_OP_RELU, .args = {"lse"}, .out = "y"},
    },
    .notes = "The logsumexp over 64 channels is at least their maximum, here positive, so the "
             "ReLU is all but an identity.",
};
