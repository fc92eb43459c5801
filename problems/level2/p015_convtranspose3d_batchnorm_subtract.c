/* L2/15 15_ConvTranspose3d_BatchNorm_Subtract:
 * b = batch_norm(convT(x)); y = b - torch.mean(b, dim=(2, 3, 4), keepdim=True),
 * convT = nn.ConvTranspose3d(16, 32, 3, stride=2, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_015 = {
    .level = 2,
    .id = 15,
    .name = "15_ConvTranspose3d_BatchNorm_Subtract",
    .dims = {
        {"batch_size", 16, 2},
        {"in_channels", 16, 3},
        {"out_channels", 32, 5},
        {"depth", 16, 3},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "depth", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "3", "3", "3"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "batch_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "batch_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
        {.name = "batch_norm.running_mean", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "batch_norm.running_var", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"},
        {"stride", "2"}, {"padding", "1"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE3D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=2, padding=1"},
        {.op = KBV_OP_BATCH_NORM, .args = {"up", "batch_norm.weight", "batch_norm.bias"}, .out = "bn", .f = {1e-5, 0.1}},
        {.op = KBV_OP_MEAN_DIMS, .args = {"bn"}, .out = "spatial_mean", .i = {(1 << 2) | (1 << 3) | (1 << 4), 1}},
        {.op = KBV_OP_SUB, .args = {"bn", "spatial_mean"}, .out = "y"},
    },
    .notes = "BatchNorm3d in training mode: normalised with the batch statistics (biased "
             "variance, eps 1e-5); the running stats PyTorch's module updates never affect the "
             "output, so the rendering calls F.batch_norm without them (num_batches_tracked is "
             "not listed). Output size 2 * D - 1 (31x63x63 at full size).",
};
