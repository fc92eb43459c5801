/* L1/6 6_Matmul_with_large_K_dimension_: C = A @ B with a large inner dimension. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_006 = {
    .level = 1,
    .id = 6,
    .name = "6_Matmul_with_large_K_dimension_",
    .dims = {{"M", 256, 9}, {"N", 256, 11}, {"K", 524288, 2053}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
