/* L2/63 63_Gemm_ReLU_Divide: y = torch.relu(linear(x)) / 2.0. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_063 = {
    .level = 2,
    .id = 63,
    .name = "63_Gemm_ReLU_Divide",
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
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}, {"divisor", "2.0"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_RELU, .args = {"lin"}, .out = "r"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"r"}, .out = "y", .f = {2.0}},
    },
    .notes = "x / self.divisor with divisor 2.0: a true division (exact here, a power of two).",
};
