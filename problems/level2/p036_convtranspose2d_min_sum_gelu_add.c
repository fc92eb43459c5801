/* L2/36 36_ConvTranspose2d_Min_Sum_GELU_Add:
 * y = gelu(torch.sum(torch.min(convT(x), dim=1, keepdim=True)[0], dim=2, keepdim=True)) + bias,
 * convT = nn.ConvTranspose2d(64, 128, 3, 2, 1, 1) (stride, padding, output_padding). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_036 = {
    .level = 2,
    .id = 36,
    .name = "36_ConvTranspose2d_Min_Sum_GELU_Add",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 128, 5},
        {"width", 128, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"}, {"bias_shape", "(1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_MIN, .args = {"up"}, .out = "channel_min", .i = {1, 1}},
        {.op = KBV_OP_SUM, .args = {"channel_min"}, .out = "col_sum", .i = {2, 1}},
        {.op = KBV_OP_GELU, .args = {"col_sum"}, .out = "g"},
        {.op = KBV_OP_ADD, .args = {"g", "bias"}, .out = "y"},
    },
    .notes = "Degenerate, though the paper keeps it: the minimum over 128 channels is negative "
             "almost everywhere, its sum over the 256 output rows is a large negative number, "
             "GELU of that is 0 (to float32), and the output [batch, 1, 1, 2 * W] is the bias, "
             "one standard normal number (torch.randn(1, 1, 1)) broadcast everywhere, whatever "
             "the input. Measured with KernelBench's module at its channel counts and 12 x 12 "
             "inputs: the output's spread was below 2e-7 under D1-D4. At kbv's small size (5 "
             "channels, 10 output rows) the sum is not that negative: the output stays within 0.05 "
             "of the bias but does depend on the input.",
};
