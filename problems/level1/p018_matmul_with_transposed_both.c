/* L1/18 18_Matmul_with_transposed_both: C = A.T @ B.T, [K,M]^T x [N,K]^T. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_018 = {
    .level = 1,
    .id = 18,
    .name = "18_Matmul_with_transposed_both",
    .dims = {{"M", 2048, 33}, {"K", 8192, 47}, {"N", 4096, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"K", "M"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "K"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_TRANSPOSE, .args = {"A"}, .out = "At"},
        {.op = KBV_OP_TRANSPOSE, .args = {"B"}, .out = "Bt"},
        {.op = KBV_OP_MATMUL, .args = {"At", "Bt"}, .out = "C"},
    },
    .notes = "A.T and B.T are views: no copies.",
};
