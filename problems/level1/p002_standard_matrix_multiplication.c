/* L1/2 2_Standard_matrix_multiplication_: C = A @ B, [M,K] x [K,N]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_002 = {
    .level = 1,
    .id = 2,
    .name = "2_Standard_matrix_multiplication_",
    .dims = {{"M", 2048, 33}, {"K", 8192, 47}, {"N", 4096, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
