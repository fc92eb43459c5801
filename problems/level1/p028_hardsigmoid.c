/* L1/28 28_HardSigmoid: y = F.hardsigmoid(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_028 = {
    .level = 1,
    .id = 28,
    .name = "28_HardSigmoid",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_HARDSIGMOID, .args = {"x"}, .out = "y"},
    },
    .notes = "Inputs are uniform [0,1): hardsigmoid reduces to x / 6 + 0.5.",
};
