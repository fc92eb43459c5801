/* L1/51 51_Argmax_over_a_dimension: y = torch.argmax(x, dim=1), int64 indices. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_051 = {
    .level = 1,
    .id = 51,
    .name = "51_Argmax_over_a_dimension",
    .dims = {{"batch_size", 128, 3}, {"dim1", 4096, 37}, {"dim2", 4095, 41}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_ARGMAX, .args = {"x"}, .out = "y", .i = {1, 0}},
    },
    .notes = "int64 output; ties give the first index and a NaN's index wins, as in PyTorch (ties occur under the D8 distribution).",
};
