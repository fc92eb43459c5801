/* L2/68 68_Matmul_Min_Subtract: h = linear(x); y = torch.min(h, constant) - constant. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_068 = {
    .level = 2,
    .id = 68,
    .name = "68_Matmul_Min_Subtract",
    .dims = {{"batch_size", 128, 3}, {"in_features", 16384, 7}, {"out_features", 16384, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "constant", .dtype = KBV_F32, .shape = {NULL}, .init = KBV_INIT_CONST,
         .value = 2.0},
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}, {"constant", "2.0"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_MINIMUM, .args = {"lin", "constant"}, .out = "low"},
        {.op = KBV_OP_SUB, .args = {"low", "constant"}, .out = "y"},
    },
    .notes = "constant is a 0-dim Parameter, nn.Parameter(torch.tensor(2.0)), in the state_dict "
             "as 'constant'; a candidate reads it as a parameter (do not fold 2.0 in). "
             "torch.min(x, t) with a tensor is the elementwise minimum. At full size the GEMM "
             "output has a standard deviation near 0.33, so the minimum with 2.0 almost never "
             "binds and the output is essentially linear(x) - 2.",
};
