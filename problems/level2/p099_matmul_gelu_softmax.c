/* L2/99 99_Matmul_GELU_Softmax: y = F.softmax(F.gelu(linear(x)), dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_099 = {
    .level = 2,
    .id = 99,
    .name = "99_Matmul_GELU_Softmax",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_GELU, .args = {"lin"}, .out = "g"},
        {.op = KBV_OP_SOFTMAX, .args = {"g"}, .out = "y", .i = {1}},
    },
    .notes = "The softmax over 8192 features of values near 0 gives outputs ~1/8192 = 1.2e-4 at "
             "full size (measured in PyTorch: max 5.0e-4 on the base draw, 7.5e-3 under D2 x3). "
             "Under --gate text (allclose 1e-3) an all-zero output passes D1, D3 and D4 and "
             "only D2 catches it; under --gate leaderboard (1e-4) it fails.",
};
