/* L2/11 11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm:
 * y = group_norm(max_pool2d(tanh(batch_norm(convT(x))), 2, 2), 8),
 * convT = nn.ConvTranspose2d(64, 128, 5, stride=1, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_011 = {
    .level = 2,
    .id = 11,
    .name = "11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm",
    /* num_groups stays 8 at the small size: 16 channels, two per group */
    .dims = {
        {"batch_size", 512, 3},
        {"in_channels", 64, 3},
        {"out_channels", 128, 16},
        {"height", 32, 5},
        {"width", 32, 7},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv_transpose.weight", .dtype = KBV_F32, .shape = {"in_channels", "out_channels", "5", "5"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv_transpose.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "batch_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "batch_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
        {.name = "batch_norm.running_mean", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "batch_norm.running_var", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES, .is_buffer = 1},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "5"},
        {"stride", "1"}, {"padding", "1"}, {"groups", "8"}, {"num_groups", "8"},
    },
    .nodes = {
        {.op = KBV_OP_CONV_TRANSPOSE2D_BIAS, .args = {"x", "conv_transpose.weight", "conv_transpose.bias"}, .out = "up", .s = "stride=1, padding=1"},
        {.op = KBV_OP_BATCH_NORM, .args = {"up", "batch_norm.weight", "batch_norm.bias"}, .out = "bn", .f = {1e-5, 0.1}},
        {.op = KBV_OP_TANH, .args = {"bn"}, .out = "t"},
        {.op = KBV_OP_MAX_POOL2D, .args = {"t"}, .out = "pooled", .s = "kernel_size=2, stride=2"},
        {.op = KBV_OP_GROUP_NORM, .args = {"pooled", "group_norm.weight", "group_norm.bias"}, .out = "y", .i = {8}, .f = {1e-5}},
    },
    .notes = "BatchNorm2d in training mode: normalised with the batch statistics (biased "
             "variance, eps 1e-5); PyTorch's module also updates batch_norm.running_mean/var each "
             "call, which never affects the output, so the rendering calls F.batch_norm without "
             "running stats (num_batches_tracked is not listed). The constructor argument groups "
             "is unused. The source sets height = width = 2048 and then 32, 32: the inputs are "
             "32x32 (output 17x17).",
};
