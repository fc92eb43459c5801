/* L2/49 49_ConvTranspose3d_Softmax_Sigmoid: y = sigmoid(softmax(convT(x), dim=1)),
 * convT = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_049 = {
    .level = 2,
    .id = 49,
    .name = "49_ConvTranspose3d_Softmax_Sigmoid",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"D", 16, 3},
        {"H", 32, 5},
        {"W", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    /* bias=True is left at the constructor's default */
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_SOFTMAX, .args = {"up"}, .out = "probs", .i = {1}},
        {.op = KBV_OP_SIGMOID, .args = {"probs"}, .out = "y"},
    },
    .notes = "Nearly constant output, though the paper keeps it: the softmax over 64 channels "
             "gives values near 1/64, and the sigmoid of those lies near sigmoid(1/64) ~ 0.504. "
             "Measured with KernelBench's module at its channel counts and reduced spatial sizes: "
             "two independent inputs gave outputs within allclose(1e-3, 1e-3) of each other "
             "everywhere under D1, D3 and D4, and at 96% of the elements under D2. kbv's small size, "
             "with 5 channels, does not show it.",
};
