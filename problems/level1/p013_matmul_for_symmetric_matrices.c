/* L1/13 13_Matmul_for_symmetric_matrices: C = A @ B for symmetric A and B. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_013 = {
    .level = 1,
    .id = 13,
    .name = "13_Matmul_for_symmetric_matrices",
    .dims = {{"N", 4096, 37}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SYMMETRIC},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SYMMETRIC},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
    .notes = "Inputs are symmetrized: (G + G.T) / 2 of a rand draw G.",
};
