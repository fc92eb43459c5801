/* L2/75 75_Gemm_GroupNorm_Min_BiasAdd:
 * y = torch.min(group_norm(gemm(x)), dim=1, keepdim=True)[0] + bias, bias [1, C, 1, 1]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_075 = {
    .level = 2,
    .id = 75,
    .name = "75_Gemm_GroupNorm_Min_BiasAdd",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 1536}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"1", "out_features", "1", "1"},
         .init = KBV_INIT_RANDN},
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"num_groups", "512"},
        {"bias_shape", "(1, out_features, 1, 1)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_GROUP_NORM, .args = {"gemm", "group_norm.weight", "group_norm.bias"},
         .out = "gn", .i = {512}, .f = {1e-5}},
        {.op = KBV_OP_MIN, .args = {"gn"}, .out = "low", .i = {1, 1}},
        {.op = KBV_OP_ADD, .args = {"low", "bias"}, .out = "y"},
    },
    .notes = "The minimum over features leaves [batch_size, 1]; adding the [1, C, 1, 1] bias "
             "broadcasts that to [1, C, batch_size, 1] (the output is batch_size * C elements, "
             "every column bias[c] + one per-row minimum). 512 groups of C / 512 features (16 at "
             "full size); the small size keeps 512 groups with 3 features each (1536).",
};
