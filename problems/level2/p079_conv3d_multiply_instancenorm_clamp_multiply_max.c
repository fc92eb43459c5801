/* L2/79 79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max:
 * c = conv(x) * m; y = torch.max(torch.clamp(instance_norm(c), -1, 1) * m, dim=1)[0]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_079 = {
    .level = 2,
    .id = 79,
    .name = "79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max",
    .dims = {
        {"batch_size", 128, 2},
        {"in_channels", 3, 3},
        {"out_channels", 16, 5},
        {"depth", 16, 5},
        {"height", 32, 7},
        {"width", 32, 9},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "multiplier", .dtype = KBV_F32, .shape = {"out_channels", "1", "1", "1"},
         .init = KBV_INIT_RANDN},
        {.name = "conv.weight", .dtype = KBV_F32,
         .shape = {"out_channels", "in_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"multiplier_shape", "(out_channels, 1, 1, 1)"}, {"clamp_min", "-1.0"}, {"clamp_max", "1.0"},
    },
    .nodes = {
        {.op = KBV_OP_CONV3D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_MUL, .args = {"conv", "multiplier"}, .out = "scaled"},
        {.op = KBV_OP_INSTANCE_NORM, .args = {"scaled"}, .out = "norm", .f = {1e-5}},
        {.op = KBV_OP_CLAMP, .args = {"norm"}, .out = "clamped", .f = {-1.0, 1.0}},
        {.op = KBV_OP_MUL, .args = {"clamped", "multiplier"}, .out = "rescaled"},
        {.op = KBV_OP_MAX, .args = {"rescaled"}, .out = "y", .i = {1, 0}},
    },
    .notes = "nn.InstanceNorm3d defaults: affine=False, no running stats, eps 1e-5: statistics "
             "per (sample, channel) over the volume. The first multiply only rescales each "
             "channel before that normalisation, so it matters through its sign (and eps); the "
             "second, after the clamp, scales each channel by its N(0,1) multiplier. "
             "torch.max(x, dim=1)[0]: the values of the maximum over channels.",
};
