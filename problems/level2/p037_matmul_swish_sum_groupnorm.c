/* L2/37 37_Matmul_Swish_Sum_GroupNorm: m = matmul(x); y = group_norm(torch.sigmoid(m) * m + bias, 64),
 * matmul = nn.Linear(1024, 4096). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_037 = {
    .level = 2,
    .id = 37,
    .name = "37_Matmul_Swish_Sum_GroupNorm",
    /* num_groups stays 64 at the small size: 128 features, two per group */
    .dims = {{"batch_size", 32768, 5}, {"in_features", 1024, 37}, {"out_features", 4096, 128}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "group_norm.weight", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES},
        {.name = "group_norm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"num_groups", "64"},
        {"bias_shape", "(out_features,)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "lin"},
        {.op = KBV_OP_SIGMOID, .args = {"lin"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"sig", "lin"}, .out = "swish"},
        {.op = KBV_OP_ADD, .args = {"swish", "bias"}, .out = "biased"},
        {.op = KBV_OP_GROUP_NORM, .args = {"biased", "group_norm.weight", "group_norm.bias"}, .out = "y", .i = {64}, .f = {1e-5}},
    },
    .notes = "Swish written as torch.sigmoid(x) * x (sigmoid first), not F.silu. bias is "
             "standard normal (torch.randn); GroupNorm of the 2-D [batch, features] tensor "
             "normalises each row's 64 groups of 64 features.",
};
