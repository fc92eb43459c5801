/* L2/88 88_Gemm_GroupNorm_Swish_Multiply_Swish:
 * g = group_norm(gemm(x)); s = (g * sigmoid(g)) * w; y = s * sigmoid(s). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_088 = {
    .level = 2,
    .id = 88,
    .name = "88_Gemm_GroupNorm_Swish_Multiply_Swish",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 768}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "multiply_weight", .dtype = KBV_F32, .shape = {"out_features"},
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
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"num_groups", "256"},
        {"multiply_weight_shape", "(out_features,)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_GROUP_NORM, .args = {"gemm", "group_norm.weight", "group_norm.bias"},
         .out = "gn", .i = {256}, .f = {1e-5}},
        {.op = KBV_OP_SIGMOID, .args = {"gn"}, .out = "sig1"},
        {.op = KBV_OP_MUL, .args = {"gn", "sig1"}, .out = "swish1"},
        {.op = KBV_OP_MUL, .args = {"swish1", "multiply_weight"}, .out = "mul"},
        {.op = KBV_OP_SIGMOID, .args = {"mul"}, .out = "sig2"},
        {.op = KBV_OP_MUL, .args = {"mul", "sig2"}, .out = "y"},
    },
    .notes = "GroupNorm over the 2-D GEMM output: 256 groups of C / 256 features (32 at full "
             "size); the group count is fixed, so the small size keeps 256 groups with 3 features "
             "each (768). multiply_weight is an N(0,1) Parameter per feature. Each swish is "
             "written out (sigmoid, multiply).",
};
