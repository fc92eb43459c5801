/* L2/51 51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd:
 * o = x.clone().detach(); y = gelu(logsumexp(mean(gemm(x) - subtract, 1), 1)) + o. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_051 = {
    .level = 2,
    .id = 51,
    .name = "51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd",
    .dims = {{"batch_size", 2048, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "subtract", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_CLONE, .args = {"x"}, .out = "original_x"},
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_SUB, .args = {"gemm", "subtract"}, .out = "sub"},
        {.op = KBV_OP_MEAN, .args = {"sub"}, .out = "pooled", .i = {1, 1}},
        {.op = KBV_OP_LOGSUMEXP, .args = {"pooled"}, .out = "lse", .i = {1, 1}},
        {.op = KBV_OP_GELU, .args = {"lse"}, .out = "act"},
        {.op = KBV_OP_ADD, .args = {"act", "original_x"}, .out = "y"},
    },
    .notes = "The residual is a clone of the input x, not of the GEMM output, so the output is "
             "[batch_size, in_features]: x plus one number per row. logsumexp over the size-1 dim "
             "left by the keepdim mean is the identity up to rounding, so that number is "
             "gelu(mean_j(x W^T + b - subtract)_j); a candidate may compute it from the row sums "
             "of W (one GEMV) instead of the whole GEMM. clone().detach() is one copy (CLONE).",
};
