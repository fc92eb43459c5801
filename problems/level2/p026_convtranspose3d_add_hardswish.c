/* L2/26 26_ConvTranspose3d_Add_HardSwish: a = convT(x) + add_input; y = a * hardswish(a),
 * convT = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_026 = {
    .level = 2,
    .id = 26,
    .name = "26_ConvTranspose3d_Add_HardSwish",
    /* add_input is drawn at (D * stride, H * stride, W * stride); a shape names
     * dims, so those are dims of their own, kept at twice D, H, W */
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 5},
        {"D", 16, 3},
        {"H", 16, 5},
        {"W", 16, 7},
        {"D_out", 32, 6},
        {"H_out", 32, 10},
        {"W_out", 32, 14},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"}, .gen = KBV_GEN_RAND},
        {.name = "add_input", .dtype = KBV_F32, .shape = {"batch_size", "out_channels", "D_out", "H_out", "W_out"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"}, {"output_padding", "1"},
        {"bias_shape", "(out_channels, 1, 1, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_ADD, .args = {"up", "add_input"}, .out = "summed"},
        {.op = KBV_OP_HARDSWISH, .args = {"summed"}, .out = "hs"},
        {.op = KBV_OP_MUL, .args = {"summed", "hs"}, .out = "y"},
    },
    .notes = "The Parameter bias (standard normal, shape (64, 1, 1, 1, 1)) is defined but never "
             "used in forward(); it is in the state_dict all the same. The module's name says "
             "HardSwish but it computes a * hardswish(a).",
};
