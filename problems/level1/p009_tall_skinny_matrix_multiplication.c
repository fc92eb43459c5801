/* L1/9 9_Tall_skinny_matrix_multiplication_: C = A @ B, [M,N] x [N,M] with N small. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_009 = {
    .level = 1,
    .id = 9,
    .name = "9_Tall_skinny_matrix_multiplication_",
    .dims = {{"M", 32768, 67}, {"N", 32, 3}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "N"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "M"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
