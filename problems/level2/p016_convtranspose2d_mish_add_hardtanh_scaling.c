/* L2/16 16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling:
 * y = hardtanh(mish(convT(x)) + 0.5, -1, 1) * 2,
 * convT = nn.ConvTranspose2d(64, 64, 3, 2, 1, 1) (stride, padding, output_padding). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_016 = {
    .level = 2,
    .id = 16,
    .name = "16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 4},
        {"height", 128, 5},
        {"width", 128, 7},
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
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"}, {"add_value", "0.5"},
        {"scale", "2"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_MISH, .args = {"up"}, .out = "m"},
        {.op = KBV_OP_ADD_SCALAR, .args = {"m"}, .out = "shifted", .f = {0.5}},
        {.op = KBV_OP_HARDTANH, .args = {"shifted"}, .out = "clipped", .f = {-1.0, 1.0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"clipped"}, .out = "y", .f = {2.0}},
    },
    .notes = "scale is the Python int 2 (x * 2 equals x * 2.0 exactly). The output lies in "
             "[-1, 2]: mish >= -0.309, so the hardtanh clips only from above.",
};
