/* L1/29 29_Softplus: y = F.softplus(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_029 = {
    .level = 1,
    .id = 29,
    .name = "29_Softplus",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SOFTPLUS, .args = {"x"}, .out = "y"},
    },
};
