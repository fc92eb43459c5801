/* L2/3 3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU:
 * y = gelu(avg_pool3d(layer_norm(convT(x) + sum_weight), 2)),
 * convT = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_003 = {
    .level = 2,
    .id = 3,
    .name = "3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU",
    /* LayerNorm((out_channels,)) normalises the last dim, the convolution's
     * output width 2 * width: the small sizes keep 2 * width == out_channels */
    .dims = {
        {"batch_size", 32, 2},
        {"in_channels", 32, 3},
        {"out_channels", 64, 6},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 3},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "sum_weight", .dtype = KBV_F32, .shape = {NULL}, .init = KBV_INIT_CONST, .value = 1.0},
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"},
        {"kernel_size", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"padding", "(1, 1, 1)"},
        {"output_padding", "(1, 1, 1)"}, {"sum_weight", "1.0"}, {"norm_shape", "(out_channels,)"},
        {"pool_kernel_size", "(2, 2, 2)"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=(2, 2, 2), padding=(1, 1, 1), output_padding=(1, 1, 1)"},
        {.op = KBV_OP_ADD, .args = {"up", "sum_weight"}, .out = "summed"},
        {.op = KBV_OP_LAYER_NORM, .args = {"summed", "norm.weight", "norm.bias"}, .out = "normed", .f = {1e-5}},
        {.op = KBV_OP_AVG_POOL3D, .args = {"normed"}, .out = "pooled", .s = "kernel_size=(2, 2, 2)"},
        {.op = KBV_OP_GELU, .args = {"pooled"}, .out = "y"},
    },
    .notes = "sum_weight is a 0-dim Parameter, nn.Parameter(torch.tensor(1.0)). "
             "nn.LayerNorm((64,)) normalises over the LAST dim, the output width (2 * 32 = 64), "
             "not over the channels; the module only works because the two coincide, so the small "
             "size keeps width = out_channels / 2. Adding the constant sum_weight before a "
             "LayerNorm changes nothing but rounding.",
};
