/* L1/26 26_GELU_: y = F.gelu(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_026 = {
    .level = 1,
    .id = 26,
    .name = "26_GELU_",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_GELU, .args = {"x"}, .out = "y"},
    },
    .notes = "Exact (erf) GELU.",
};
