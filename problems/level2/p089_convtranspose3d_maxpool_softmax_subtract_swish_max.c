/* L2/89 89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max:
 * p = softmax(max_pool3d(conv_transpose(x), 2, 2, 0), 1) - subtract.view(1, -1, 1, 1, 1);
 * y = torch.max(torch.sigmoid(p) * p, dim=1)[0]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_089 = {
    .level = 2,
    .id = 89,
    .name = "89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "subtract", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"}, {"pool_kernel_size", "2"},
        {"pool_stride", "2"}, {"pool_padding", "0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_MAX_POOL3D, .args = {"ct"}, .out = "pooled",
         .s = "kernel_size=2, stride=2, padding=0"},
        {.op = KBV_OP_SOFTMAX, .args = {"pooled"}, .out = "sm", .i = {1}},
        {.op = KBV_OP_VIEW, .args = {"subtract"}, .out = "sub_view", .s = "(1, -1, 1, 1, 1)"},
        {.op = KBV_OP_SUB, .args = {"sm", "sub_view"}, .out = "shifted"},
        {.op = KBV_OP_SIGMOID, .args = {"shifted"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"sig", "shifted"}, .out = "swish"},
        {.op = KBV_OP_MAX, .args = {"swish"}, .out = "y", .i = {1, 0}},
    },
    .notes = "subtract is an N(0,1) Parameter per channel, viewed as [1, C, 1, 1, 1]. The "
             "softmax over channels gives values in (0, 1) that the per-channel shift of order 1 "
             "dominates, so the channel with the most negative subtract wins the final max over "
             "channels everywhere: the output is nearly constant, ~swish(softmax - min(subtract)). "
             "Measured in PyTorch at full size with KernelBench's own init: every position "
             "picked the same channel and the output spans 1.701-1.714 (D3: 1.70245-1.70257).",
};
