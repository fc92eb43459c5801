/* L2/59 59_Matmul_Swish_Scaling: m = matmul(x); y = (m * torch.sigmoid(m)) * 2.0. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_059 = {
    .level = 2,
    .id = 59,
    .name = "59_Matmul_Swish_Scaling",
    .dims = {{"batch_size", 128, 3}, {"in_features", 32768, 7}, {"out_features", 32768, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"scaling_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_SIGMOID, .args = {"mm"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"mm", "sig"}, .out = "swish"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"swish"}, .out = "y", .f = {2.0}},
    },
    .notes = "Swish written out as x * torch.sigmoid(x) (two ops), then the scaling.",
};
