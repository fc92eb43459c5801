/* L2/5 5_ConvTranspose2d_Subtract_Tanh: y = tanh(convT(x) - bias),
 * convT = nn.ConvTranspose2d(64, 64, 4, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_005 = {
    .level = 2,
    .id = 5,
    .name = "5_ConvTranspose2d_Subtract_Tanh",
    .dims = {
        {"batch_size", 32, 2},
        {"in_channels", 64, 3},
        {"out_channels", 64, 4},
        {"height", 256, 5},
        {"width", 256, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_channels", "1", "1"}, .init = KBV_INIT_RANDN},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "4", "4"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    /* stride, padding and output_padding are left at the constructor's defaults 2, 1, 1 */
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "4"},
        {"bias_shape", "(out_channels, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1, output_padding=1"},
        {.op = KBV_OP_SUB, .args = {"up", "bias"}, .out = "shifted"},
        {.op = KBV_OP_TANH, .args = {"shifted"}, .out = "y"},
    },
    .notes = "Output size 2 * H + 1 (kernel 4, stride 2, padding 1, output_padding 1): 513 at "
             "full size. bias is standard normal (torch.randn).",
};
