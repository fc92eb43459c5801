/* L1/19 19_ReLU: y = torch.relu(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_019 = {
    .level = 1,
    .id = 19,
    .name = "19_ReLU",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_RELU, .args = {"x"}, .out = "y"},
    },
    .notes = "Inputs are uniform [0,1): relu is the identity on them.",
};
