/* L1/49 49_Max_reduction_over_a_dimension: y = torch.max(x, dim=1).values. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_049 = {
    .level = 1,
    .id = 49,
    .name = "49_Max_reduction_over_a_dimension",
    .dims = {{"batch_size", 128, 3}, {"dim1", 4096, 37}, {"dim2", 4095, 41}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_MAX, .args = {"x"}, .out = "y", .i = {1, 0}},
    },
    .notes = "Only the values of torch.max are returned; a NaN in a column wins, as in PyTorch.",
};
