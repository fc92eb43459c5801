/* L1/17 17_Matmul_with_transposed_B: C = A @ B.T, [M,K] x [N,K]^T. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_017 = {
    .level = 1,
    .id = 17,
    .name = "17_Matmul_with_transposed_B",
    .dims = {{"M", 2048, 33}, {"K", 8192, 47}, {"N", 4096, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "K"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_TRANSPOSE, .args = {"B"}, .out = "Bt"},
        {.op = KBV_OP_MATMUL, .args = {"A", "Bt"}, .out = "C"},
    },
    .notes = "B.T is a view: no copy.",
};
