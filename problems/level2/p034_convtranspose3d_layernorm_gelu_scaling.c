/* L2/34 34_ConvTranspose3d_LayerNorm_GELU_Scaling: y = gelu(layer_norm(convT(x))) * 1.0,
 * convT = nn.ConvTranspose3d(32, 64, 4, stride=2, padding=1), nn.LayerNorm(64, eps=1e-5). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_034 = {
    .level = 2,
    .id = 34,
    .name = "34_ConvTranspose3d_LayerNorm_GELU_Scaling",
    /* LayerNorm(out_channels) normalises the last dim, the convolution's output
     * width 2 * W: the small sizes keep 2 * W == out_channels */
    .dims = {
        {"batch_size", 32, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 6},
        {"D", 16, 3},
        {"H", 32, 5},
        {"W", 32, 3},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "D", "H", "W"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "4", "4", "4"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "layer_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "layer_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "4"},
        {"stride", "2"}, {"padding", "1"}, {"bias", "True"}, {"eps", "1e-05"},
        {"scaling_factor", "1.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1"},
        {.op = KBV_OP_LAYER_NORM, .args = {"up", "layer_norm.weight", "layer_norm.bias"}, .out = "normed", .f = {1e-5}},
        {.op = KBV_OP_GELU, .args = {"normed"}, .out = "g"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"g"}, .out = "y", .f = {1.0}},
    },
    .notes = "nn.LayerNorm(64) normalises over the LAST dim, the output width (2 * 32 = 64), not "
             "over the channels; the module only works because the two coincide, so the small size "
             "keeps W = out_channels / 2. The scaling by 1.0 is an identity.",
};
