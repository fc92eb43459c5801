/* L2/12 12_Gemm_Multiply_LeakyReLU: y = leaky_relu(gemm(x) * 2.0, 0.1), gemm = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_012 = {
    .level = 2,
    .id = 12,
    .name = "12_Gemm_Multiply_LeakyReLU",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"multiplier", "2.0"},
        {"negative_slope", "0.1"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "lin"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"lin"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_LEAKY_RELU, .args = {"scaled"}, .out = "y", .f = {0.1}},
    },
};
