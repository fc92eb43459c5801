/* L2/30 30_Gemm_GroupNorm_Hardtanh: y = hardtanh(group_norm(gemm(x), 16), -2.0, 2.0),
 * gemm = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_030 = {
    .level = 2,
    .id = 30,
    .name = "30_Gemm_GroupNorm_Hardtanh",
    /* num_groups stays 16 at the small size: 48 features, three per group */
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 48}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"num_groups", "16"},
        {"hardtanh_min", "-2.0"}, {"hardtanh_max", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "lin"},
        {.op = KBV_OP_GROUP_NORM, .args = {"lin", "group_norm.weight", "group_norm.bias"}, .out = "normed", .i = {16}, .f = {1e-5}},
        {.op = KBV_OP_HARDTANH, .args = {"normed"}, .out = "y", .f = {-2.0, 2.0}},
    },
    .notes = "GroupNorm of a 2-D [batch, features] tensor: each row's 16 groups of 512 features "
             "are normalised separately.",
};
