/* L1/31 31_ELU: y = F.elu(x, alpha=self.alpha) with alpha = 1.0. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_031 = {
    .level = 1,
    .id = 31,
    .name = "31_ELU",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"alpha", "1.0"}},
    .nodes = {
        {.op = KBV_OP_ELU, .args = {"x"}, .out = "y", .f = {1.0}},
    },
    .notes = "Inputs are uniform [0,1): elu is the identity on them.",
};
