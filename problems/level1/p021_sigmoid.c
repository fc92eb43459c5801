/* L1/21 21_Sigmoid: y = torch.sigmoid(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_021 = {
    .level = 1,
    .id = 21,
    .name = "21_Sigmoid",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SIGMOID, .args = {"x"}, .out = "y"},
    },
};
