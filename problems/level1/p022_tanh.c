/* L1/22 22_Tanh: y = torch.tanh(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_022 = {
    .level = 1,
    .id = 22,
    .name = "22_Tanh",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_TANH, .args = {"x"}, .out = "y"},
    },
};
