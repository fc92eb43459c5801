/* L2/70 70_Gemm_Sigmoid_Scaling_ResidualAdd: g = gemm(x); y = torch.sigmoid(g) * 2.0 + g. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_070 = {
    .level = 2,
    .id = 70,
    .name = "70_Gemm_Sigmoid_Scaling_ResidualAdd",
    .dims = {{"batch_size", 1024, 3}, {"input_size", 8192, 7}, {"hidden_size", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"hidden_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"input_size", "input_size"}, {"hidden_size", "hidden_size"}, {"scaling_factor", "2.0"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_SIGMOID, .args = {"gemm"}, .out = "sig"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"sig"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_ADD, .args = {"scaled", "gemm"}, .out = "y"},
    },
    .notes = "The residual is the GEMM output (original_x = x after the GEMM), added last.",
};
