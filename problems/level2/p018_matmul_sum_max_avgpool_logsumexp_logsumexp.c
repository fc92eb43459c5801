/* L2/18 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp:
 * s = sum(linear(x), dim=1, keepdim=True); then max, mean, logsumexp, logsumexp, each over
 * dim 1 with keepdim, linear = nn.Linear(8192, 8192). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_018 = {
    .level = 2,
    .id = 18,
    .name = "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp",
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
        {.op = KBV_OP_SUM, .args = {"lin"}, .out = "summed", .i = {1, 1}},
        {.op = KBV_OP_MAX, .args = {"summed"}, .out = "maxed", .i = {1, 1}},
        {.op = KBV_OP_MEAN, .args = {"maxed"}, .out = "avg", .i = {1, 1}},
        {.op = KBV_OP_LOGSUMEXP, .args = {"avg"}, .out = "lse1", .i = {1, 1}},
        {.op = KBV_OP_LOGSUMEXP, .args = {"lse1"}, .out = "y", .i = {1, 1}},
    },
    .notes = "After the sum over dim 1 (keepdim) the max, mean and both logsumexps act on a "
             "size-1 dim and are identities: the output [batch, 1] is the row sums of the linear "
             "output, i.e. x @ weight.sum(0) + bias.sum().",
};
