/* L2/29 29_Matmul_Mish_Mish: y = mish(mish(linear(x))), linear = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_029 = {
    .level = 2,
    .id = 29,
    .name = "29_Matmul_Mish_Mish",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_MISH, .args = {"lin"}, .out = "m1"},
        {.op = KBV_OP_MISH, .args = {"m1"}, .out = "y"},
    },
};
