/* L2/38 38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply:
 * c = clamp(convT(avg_pool3d(x, 2)), 0.0, 1.0); y = softmax(c.view(b, c, -1), dim=2).view(b, c, d, h, w) * scale,
 * convT = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_038 = {
    .level = 2,
    .id = 38,
    .name = "38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply",
    /* the pool halves and the convolution doubles the spatial sizes: even
     * sizes come back unchanged, so the views name the input's dims */
    .dims = {
        {"batch_size", 32, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 32, 4},
        {"height", 64, 6},
        {"width", 64, 8},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "scale", .dtype = KBV_F32, .shape = {"1", "out_channels", "1", "1", "1"}, .init = KBV_INIT_ONES},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"}, {"pool_kernel_size", "2"},
        {"clamp_min", "0.0"}, {"clamp_max", "1.0"},
    },
    .nodes = {
        {.op = KBV_OP_AVG_POOL3D, .args = {"x"}, .out = "pooled", .s = "kernel_size=2"},
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"pooled", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_CLAMP, .args = {"up"}, .out = "clamped", .f = {0.0, 1.0}},
        {.op = KBV_OP_VIEW, .args = {"clamped"}, .out = "flat", .s = "(batch_size, out_channels, -1)"},
        {.op = KBV_OP_SOFTMAX, .args = {"flat"}, .out = "probs", .i = {2}},
        {.op = KBV_OP_VIEW, .args = {"probs"}, .out = "unflat", .s = "(batch_size, out_channels, depth, height, width)"},
        {.op = KBV_OP_MUL, .args = {"unflat", "scale"}, .out = "y"},
    },
    .notes = "Degenerate, though the paper keeps it: the softmax runs over all d * h * w "
             "positions of a channel (131072 at full size) of values clamped to [0, 1], so every "
             "output is within a factor e of 1 / 131072 (about 7.6e-6), far below allclose's "
             "atol of 1e-3: an all-zero output passes (at kbv's small size, 192 positions a "
             "channel, the outputs are about 5e-3 and it does not). scale is "
             "nn.Parameter(torch.ones(1, out_channels, 1, 1, 1)).",
};
