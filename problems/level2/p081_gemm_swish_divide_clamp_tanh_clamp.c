/* L2/81 81_Gemm_Swish_Divide_Clamp_Tanh_Clamp:
 * g = gemm(x); y = clamp(tanh(clamp((g * sigmoid(g)) / 2.0, -1, 1)), -1, 1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_081 = {
    .level = 2,
    .id = 81,
    .name = "81_Gemm_Swish_Divide_Clamp_Tanh_Clamp",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_SIGMOID, .args = {"gemm"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"gemm", "sig"}, .out = "swish"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"swish"}, .out = "half", .f = {2.0}},
        {.op = KBV_OP_CLAMP, .args = {"half"}, .out = "c1", .f = {-1.0, 1.0}},
        {.op = KBV_OP_TANH, .args = {"c1"}, .out = "th"},
        {.op = KBV_OP_CLAMP, .args = {"th"}, .out = "y", .f = {-1.0, 1.0}},
    },
    .notes = "The last clamp never binds (tanh is within [-1, 1]); the first binds only where "
             "swish(x) / 2 leaves [-1, 1]. Both are kept, as the module runs them.",
};
