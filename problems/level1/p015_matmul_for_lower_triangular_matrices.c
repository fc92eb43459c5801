/* L1/15 15_Matmul_for_lower_triangular_matrices: C = torch.tril(A @ B) for lower triangular A and B. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_015 = {
    .level = 1,
    .id = 15,
    .name = "15_Matmul_for_lower_triangular_matrices",
    .dims = {{"N", 4096, 37}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIL},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIL},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "P"},
        {.op = KBV_OP_TRIL, .args = {"P"}, .out = "C"},
    },
    .notes = "Inputs are torch.tril of a rand draw.",
};
