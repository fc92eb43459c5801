/* L2/10 10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh:
 * y = tanh(mean(hardtanh(max_pool2d(convT(x), 2, 2), -1, 1), dim=(2, 3), keepdim=True)),
 * convT = nn.ConvTranspose2d(64, 64, 3, stride=1, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_010 = {
    .level = 2,
    .id = 10,
    .name = "10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 4},
        {"height", 256, 9},
        {"width", 256, 11},
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
        {"stride", "1"}, {"padding", "1"}, {"maxpool_kernel_size", "2"}, {"maxpool_stride", "2"},
        {"hardtanh_min", "-1"}, {"hardtanh_max", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=1, padding=1"},
        {.op = KBV_OP_MAX_POOL2D, .args = {"up"}, .out = "pooled", .s = "kernel_size=2, stride=2"},
        {.op = KBV_OP_HARDTANH, .args = {"pooled"}, .out = "clipped", .f = {-1.0, 1.0}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"clipped"}, .out = "avg", .i = {(1 << 2) | (1 << 3), 1}},
        {.op = KBV_OP_TANH, .args = {"avg"}, .out = "y"},
    },
    .notes = "Output [batch, channels, 1, 1]. hardtanh_min and hardtanh_max are the Python ints "
             "-1 and 1 (nn.Hardtanh takes them as floats).",
};
