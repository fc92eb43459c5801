/* L2/67 67_Conv2d_GELU_GlobalAvgPool:
 * y = F.adaptive_avg_pool2d(F.gelu(conv(x)), 1).squeeze(-1).squeeze(-1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_067 = {
    .level = 2,
    .id = 67,
    .name = "67_Conv2d_GELU_GlobalAvgPool",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"height", 256, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_GELU, .args = {"conv"}, .out = "g"},
        {.op = KBV_OP_ADAPTIVE_AVG_POOL2D, .args = {"g"}, .out = "pooled", .s = "output_size=1"},
        {.op = KBV_OP_SQUEEZE, .args = {"pooled"}, .out = "sq1", .i = {-1}},
        {.op = KBV_OP_SQUEEZE, .args = {"sq1"}, .out = "y", .i = {-1}},
    },
    .notes = "Global average pooling: adaptive_avg_pool2d to 1x1, then two squeezes of the last "
             "dim (views) leave [batch_size, out_channels].",
};
