/* L2/93 93_ConvTranspose2d_Add_Min_GELU_Multiply:
 * y = F.gelu(torch.min(conv_transpose(x) + 0.5, torch.tensor(0.0))) * 2.0. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_093 = {
    .level = 2,
    .id = 93,
    .name = "93_ConvTranspose2d_Add_Min_GELU_Multiply",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 23},
        {"out_channels", 128, 3},
        {"height", 64, 5},
        {"width", 64, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32,
         .shape = {"in_channels", "out_channels", "4", "4"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "4"},
        {"stride", "2"}, {"add_value", "0.5"}, {"multiply_value", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS,
         .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "ct",
         .s = "stride=2"},
        {.op = KBV_OP_ADD_SCALAR, .args = {"ct"}, .out = "added", .f = {0.5}},
        {.op = KBV_OP_MIN_SCALAR, .args = {"added"}, .out = "low", .f = {0.0}},
        {.op = KBV_OP_GELU, .args = {"low"}, .out = "g"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"g"}, .out = "y", .f = {2.0}},
    },
    .notes = "torch.min(x, torch.tensor(0.0)) is the elementwise minimum with a 0-dim constant "
             "made in forward(). Every output is <= 0 and exactly 0 wherever conv + 0.5 >= 0. At "
             "full size the transposed convolution's output has a standard deviation of ~0.12 "
             "(weight bound 1/sqrt(2048), PyTorch's fan-in from dim 1), so conv + 0.5 is "
             "positive everywhere: measured in PyTorch, the output is identically 0 on the base "
             "draw, D3 and D4 (negation keeps the distribution), and only D2 (x3) makes ~5% of "
             "it nonzero. An all-zero output passes D1, D3 and D4 and fails only D2; the "
             "problem is near-degenerate, though not excluded by the paper (its output is not "
             "constant under all four configs). The output's spread grows as in_channels / "
             "out_channels, so the small size takes 23 input and 3 output channels: about a "
             "tenth of its output is then nonzero, and the CI checks exercise the GELU; at the "
             "catalog's proportions it would be all zero as well.",
};
