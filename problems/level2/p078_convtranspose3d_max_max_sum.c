/* L2/78 78_ConvTranspose3d_Max_Max_Sum:
 * y = torch.sum(max_pool3d(max_pool3d(conv_transpose(x), 2), 3), dim=1, keepdim=True). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_078 = {
    .level = 2,
    .id = 78,
    .name = "78_ConvTranspose3d_Max_Max_Sum",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"depth", 32, 7},
        {"height", 32, 7},
        {"width", 32, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "5", "5", "5"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "5"},
        {"stride", "2"}, {"padding", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2, padding=2"},
        {.op = KBV_OP_MAX_POOL3D, .args = {"ct"}, .out = "pool1", .s = "kernel_size=2"},
        {.op = KBV_OP_MAX_POOL3D, .args = {"pool1"}, .out = "pool2", .s = "kernel_size=3"},
        {.op = KBV_OP_SUM, .args = {"pool2"}, .out = "y", .i = {1, 1}},
    },
    .notes = "nn.MaxPool3d(2) then nn.MaxPool3d(3), each with stride = kernel and floor: at full "
             "size 63 -> 31 -> 10 (the last conv plane and the last pooled plane fall out); at "
             "the small size 13x13x17 -> 6x6x8 -> 2x2x2.",
};
