/* L1/14 14_Matmul_for_upper_triangular_matrices: C = torch.triu(A @ B) for upper triangular A and B. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_014 = {
    .level = 1,
    .id = 14,
    .name = "14_Matmul_for_upper_triangular_matrices",
    .dims = {{"N", 4096, 37}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIU},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIU},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "P"},
        {.op = KBV_OP_TRIU, .args = {"P"}, .out = "C"},
    },
    .notes = "Inputs are torch.triu of a rand draw.",
};
