/* L2/22 22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish:
 * h = clamp(2 * (linear(x) * 2.0), -10, 10) (as x + x); l = logsumexp(h, dim=1, keepdim=True);
 * y = l * mish(l), linear = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_022 = {
    .level = 2,
    .id = 22,
    .name = "22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish",
    .dims = {{"batch_size", 1024, 5}, {"input_size", 8192, 37}, {"hidden_size", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"hidden_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"input_size", "input_size"}, {"hidden_size", "hidden_size"}, {"scale_factor", "2.0"},
        {"clamp_min", "-10.0"}, {"clamp_max", "10.0"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "lin"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"lin"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_ADD, .args = {"scaled", "scaled"}, .out = "doubled"},
        {.op = KBV_OP_CLAMP, .args = {"doubled"}, .out = "clamped", .f = {-10.0, 10.0}},
        {.op = KBV_OP_LOGSUMEXP, .args = {"clamped"}, .out = "lse", .i = {1, 1}},
        {.op = KBV_OP_MISH, .args = {"lse"}, .out = "m"},
        {.op = KBV_OP_MUL, .args = {"lse", "m"}, .out = "y"},
    },
    .notes = "The residual add is x + x of the same tensor. Output [batch, 1], of order 100 "
             "(the logsumexp of 8192 values is at least log(8192) ~ 9).",
};
