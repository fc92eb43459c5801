/* L2/80 80_Gemm_Max_Subtract_GELU:
 * m = torch.max(gemm(x), dim=1, keepdim=True).values; y = F.gelu(m - m.mean(dim=1, keepdim=True)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_080 = {
    .level = 2,
    .id = 80,
    .name = "80_Gemm_Max_Subtract_GELU",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}, {"max_dim", "1"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "gemm"},
        {.op = KBV_OP_MAX, .args = {"gemm"}, .out = "m", .i = {1, 1}},
        {.op = KBV_OP_MEAN, .args = {"m"}, .out = "mean", .i = {1, 1}},
        {.op = KBV_OP_SUB, .args = {"m", "mean"}, .out = "centred"},
        {.op = KBV_OP_GELU, .args = {"centred"}, .out = "y"},
    },
    .notes = "Degenerate (the paper excludes it): after the keepdim max the tensor is "
             "[batch_size, 1], its mean over that size-1 dim is itself, so m - mean is exactly 0 "
             "and the output is gelu(0) = 0 everywhere, for every input and parameter (whenever "
             "the GEMM is finite). kbv defines it faithfully; its audit lists it as degenerate, "
             "and an all-zero output passes every gate.",
};
