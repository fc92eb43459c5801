/* L2/40 40_Matmul_Scaling_ResidualAdd: m = matmul(x); o = m.clone().detach(); y = m * 0.5 + o,
 * matmul = nn.Linear(4096, 4096). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_040 = {
    .level = 2,
    .id = 40,
    .name = "40_Matmul_Scaling_ResidualAdd",
    .dims = {{"batch_size", 16384, 5}, {"in_features", 4096, 37}, {"out_features", 4096, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}, {"scaling_factor", "0.5"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "lin"},
        {.op = KBV_OP_CLONE, .args = {"lin"}, .out = "original"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"lin"}, .out = "scaled", .f = {0.5}},
        {.op = KBV_OP_ADD, .args = {"scaled", "original"}, .out = "y"},
    },
    .notes = "original_x = x.clone().detach() is a copy (detach only matters for autograd): "
             "y = 1.5 * linear(x), computed as linear(x) * 0.5 + linear(x).",
};
