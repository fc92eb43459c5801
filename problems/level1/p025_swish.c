/* L1/25 25_Swish: y = x * torch.sigmoid(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_025 = {
    .level = 1,
    .id = 25,
    .name = "25_Swish",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SIGMOID, .args = {"x"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"x", "sig"}, .out = "y"},
    },
    .notes = "Two ops, as PyTorch eager runs them: sigmoid, then multiply.",
};
