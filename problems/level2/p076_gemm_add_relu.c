/* L2/76 76_Gemm_Add_ReLU: y = torch.relu(gemm(x) + bias), gemm without its own bias. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_076 = {
    .level = 2,
    .id = 76,
    .name = "76_Gemm_Add_ReLU",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"bias_shape", "(out_features,)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight"}, .out = "gemm"},
        {.op = KBV_OP_ADD, .args = {"gemm", "bias"}, .out = "biased"},
        {.op = KBV_OP_RELU, .args = {"biased"}, .out = "y"},
    },
    .notes = "nn.Linear(bias=False) then a separate N(0,1) bias Parameter: the bias (std 1) "
             "dominates the GEMM (std ~0.33 at full size), so about half of the outputs are 0 "
             "after the ReLU (50% measured in PyTorch).",
};
