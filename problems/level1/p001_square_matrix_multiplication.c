/* L1/1 1_Square_matrix_multiplication_: C = A @ B for square matrices. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_001 = {
    .level = 1,
    .id = 1,
    .name = "1_Square_matrix_multiplication_",
    .dims = {{"N", 4096, 33}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
