/* L1/27 27_SELU_: y = torch.selu(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_027 = {
    .level = 1,
    .id = 27,
    .name = "27_SELU_",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SELU, .args = {"x"}, .out = "y"},
    },
    .notes = "Inputs are uniform [0,1): selu reduces to 1.0507 * x.",
};
