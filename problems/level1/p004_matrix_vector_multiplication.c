/* L1/4 4_Matrix_vector_multiplication_: C = A @ B with B a [K,1] column. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_004 = {
    .level = 1,
    .id = 4,
    .name = "4_Matrix_vector_multiplication_",
    .dims = {{"M", 2048, 33}, {"K", 1048576, 1031}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "1"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
    .notes = "B is a [K, 1] matrix, not a 1-D vector, so the output is [M, 1].",
};
