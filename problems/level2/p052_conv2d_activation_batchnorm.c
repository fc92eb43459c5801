/* L2/52 52_Conv2d_Activation_BatchNorm:
 * c = conv(x); y = bn(torch.multiply(torch.tanh(F.softplus(c)), c)), training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_052 = {
    .level = 2,
    .id = 52,
    .name = "52_Conv2d_Activation_BatchNorm",
    .dims = {
        {"batch_size", 64, 2},
        {"in_channels", 64, 3},
        {"out_channels", 128, 5},
        {"height", 128, 9},
        {"width", 128, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "conv.weight", .dtype = KBV_F32, .shape = {"out_channels", "in_channels", "3", "3"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "conv.bias", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "bn.weight", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ONES},
        {.name = "bn.bias", .dtype = KBV_F32, .shape = {"out_channels"}, .init = KBV_INIT_ZEROS},
        {.name = "bn.running_mean", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "bn.running_var", .dtype = KBV_F32, .shape = {"out_channels"},
         .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {{"in_channels", "in_channels"}, {"out_channels", "out_channels"}, {"kernel_size", "3"}},
    .nodes = {
        {.op = KBV_OP_CONV2D_BIAS, .args = {"x", "conv.weight", "conv.bias"}, .out = "conv",
         .s = "stride=1, padding=0"},
        {.op = KBV_OP_SOFTPLUS, .args = {"conv"}, .out = "sp"},
        {.op = KBV_OP_TANH, .args = {"sp"}, .out = "th"},
        {.op = KBV_OP_MUL, .args = {"th", "conv"}, .out = "act"},
        {.op = KBV_OP_BATCH_NORM, .args = {"act", "bn.weight", "bn.bias"}, .out = "y",
         .f = {1e-5, 0.1}},
    },
    .notes = "The activation is Mish written out (tanh(softplus(x)) * x, three ops). BatchNorm2d "
             "in training mode: batch statistics (biased variance, eps 1e-5); the module's update "
             "of bn.running_mean/bn.running_var never affects the output, and the rendering calls "
             "F.batch_norm without running stats (same output, no update). num_batches_tracked is "
             "not listed, as in the catalog.",
};
