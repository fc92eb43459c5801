/* L2/56 56_Matmul_Sigmoid_Sum: y = torch.sum(torch.sigmoid(linear(x)), dim=1, keepdim=True). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_056 = {
    .level = 2,
    .id = 56,
    .name = "56_Matmul_Sigmoid_Sum",
    .dims = {{"batch_size", 128, 3}, {"input_size", 32768, 7}, {"hidden_size", 32768, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"hidden_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"input_size", "input_size"}, {"hidden_size", "hidden_size"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_SIGMOID, .args = {"lin"}, .out = "sig"},
        {.op = KBV_OP_SUM, .args = {"sig"}, .out = "y", .i = {1, 1}},
    },
    .notes = "At full size each row sums 32768 sigmoids of values near 0, so the output is close "
             "to 16384 on every row and relatively insensitive to the GEMM: an error of 1e-4 "
             "relative is ~1.6 absolute.",
};
