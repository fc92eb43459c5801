/* L1/47 47_Sum_reduction_over_a_dimension: y = torch.sum(x, dim=1, keepdim=True). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_047 = {
    .level = 1,
    .id = 47,
    .name = "47_Sum_reduction_over_a_dimension",
    .dims = {{"batch_size", 128, 3}, {"dim1", 4096, 37}, {"dim2", 4095, 41}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_SUM, .args = {"x"}, .out = "y", .i = {1, 1}},
    },
    .notes = "A strided reduction: dim 1 is the middle dim, so each output sums 4096 elements 4095 apart.",
};
