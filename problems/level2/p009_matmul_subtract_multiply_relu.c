/* L2/9 9_Matmul_Subtract_Multiply_ReLU: y = relu((linear(x) - 2.0) * 1.5),
 * linear = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_009 = {
    .level = 2,
    .id = 9,
    .name = "9_Matmul_Subtract_Multiply_ReLU",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"subtract_value", "2.0"}, {"multiply_value", "1.5"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_SUB_SCALAR, .args = {"lin"}, .out = "shifted", .f = {2.0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"shifted"}, .out = "scaled", .f = {1.5}},
        {.op = KBV_OP_RELU, .args = {"scaled"}, .out = "y"},
    },
    .notes = "Nearly constant output: with x in [0, 1) and PyTorch's default Linear init the "
             "linear outputs have a standard deviation of about 1/3 (any in_features), so "
             "linear(x) - 2.0 is negative almost everywhere and the ReLU returns zeros. "
             "Measured with KernelBench's module at 8192 features: under D1, D3 and D4 every "
             "output was 0 (an all-zero kernel passes them); under D2 (x * 3) about 2% were not.",
};
