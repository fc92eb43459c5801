/* L2/94 94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm:
 * y = groupnorm(mish(hardtanh(gemm(x) + bias))), 256 groups. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_094 = {
    .level = 2,
    .id = 94,
    .name = "94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 768}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "groupnorm.weight", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ONES},
        {.name = "groupnorm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"bias_shape", "(out_features,)"}, {"num_groups", "256"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_ADD, .args = {"gemm", "bias"}, .out = "biased"},
        {.op = KBV_OP_HARDTANH, .args = {"biased"}, .out = "ht", .f = {-1.0, 1.0}},
        {.op = KBV_OP_MISH, .args = {"ht"}, .out = "mish"},
        {.op = KBV_OP_GROUP_NORM, .args = {"mish", "groupnorm.weight", "groupnorm.bias"},
         .out = "y", .i = {256}, .f = {1e-5}},
    },
    .notes = "nn.Hardtanh() defaults to [-1, 1]; the N(0,1) bias pushes about a third of the "
             "features past +-1, where the hardtanh saturates and the output no longer depends "
             "on the input before the GroupNorm. GroupNorm: 256 groups (the small size has 3 "
             "features per group, 768).",
};
