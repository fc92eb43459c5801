/* L1/30 30_Softsign: y = x / (1 + torch.abs(x)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_030 = {
    .level = 1,
    .id = 30,
    .name = "30_Softsign",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_ABS, .args = {"x"}, .out = "a"},
        {.op = KBV_OP_ADD_SCALAR, .args = {"a"}, .out = "d", .f = {1.0}},
        {.op = KBV_OP_DIV, .args = {"x", "d"}, .out = "y"},
    },
    .notes = "Three ops, as PyTorch eager runs them: abs, add 1, divide.",
};
