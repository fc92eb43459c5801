/* L2/57 57_Conv2d_ReLU_HardSwish:
 * r = torch.relu(conv(x)); y = r * torch.clamp((r + 3) / 6, 0, 1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_057 = {
    .level = 2,
    .id = 57,
    .name = "57_Conv2d_ReLU_HardSwish",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 8, 3},
        {"out_channels", 64, 5},
        {"height", 128, 9},
        {"width", 128, 11},
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
        {.op = KBV_OP_RELU, .args = {"conv"}, .out = "r"},
        {.op = KBV_OP_ADD_SCALAR, .args = {"r"}, .out = "r3", .f = {3.0}},
        {.op = KBV_OP_DIV_SCALAR, .args = {"r3"}, .out = "r36", .f = {6.0}},
        {.op = KBV_OP_CLAMP, .args = {"r36"}, .out = "gate", .f = {0.0, 1.0}},
        {.op = KBV_OP_MUL, .args = {"r", "gate"}, .out = "y"},
    },
    .notes = "HardSwish written out, op by op as the module does ((x + 3) / 6 is a true division "
             "by 6, not a multiply by 1/6); after the ReLU the lower clamp never binds.",
};
