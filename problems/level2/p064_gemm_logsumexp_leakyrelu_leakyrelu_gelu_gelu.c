/* L2/64 64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU:
 * y = gelu(gelu(leaky_relu(leaky_relu(logsumexp(linear(x), 1, keepdim), 0.01), 0.01))). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_064 = {
    .level = 2,
    .id = 64,
    .name = "64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU",
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
        {.op = KBV_OP_LOGSUMEXP, .args = {"lin"}, .out = "lse", .i = {1, 1}},
        {.op = KBV_OP_LEAKY_RELU, .args = {"lse"}, .out = "lr1", .f = {0.01}},
        {.op = KBV_OP_LEAKY_RELU, .args = {"lr1"}, .out = "lr2", .f = {0.01}},
        {.op = KBV_OP_GELU, .args = {"lr2"}, .out = "g1"},
        {.op = KBV_OP_GELU, .args = {"g1"}, .out = "y"},
    },
    .notes = "The output is one number per row ([batch_size, 1]). logsumexp over 8192 features "
             "of values near 0 is close to log(8192) ~ 9.0 at full size, where both leaky ReLUs "
             "and GELUs are nearly the identity: the output is ~9 on every row and moves little "
             "with the input.",
};
