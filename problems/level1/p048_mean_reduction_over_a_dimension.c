/* L1/48 48_Mean_reduction_over_a_dimension: y = torch.mean(x, dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_048 = {
    .level = 1,
    .id = 48,
    .name = "48_Mean_reduction_over_a_dimension",
    .dims = {{"batch_size", 128, 3}, {"dim1", 4096, 37}, {"dim2", 4095, 41}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_MEAN, .args = {"x"}, .out = "y", .i = {1, 0}},
    },
    .notes = "A strided reduction over the middle dim (4096 elements 4095 apart per output).",
};
