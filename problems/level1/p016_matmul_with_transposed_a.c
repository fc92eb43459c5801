/* L1/16 16_Matmul_with_transposed_A: C = A.T @ B, [K,M]^T x [K,N]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_016 = {
    .level = 1,
    .id = 16,
    .name = "16_Matmul_with_transposed_A",
    .dims = {{"M", 2048, 33}, {"K", 8192, 47}, {"N", 4096, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"K", "M"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_TRANSPOSE, .args = {"A"}, .out = "At"},
        {.op = KBV_OP_MATMUL, .args = {"At", "B"}, .out = "C"},
    },
    .notes = "A.T is a view: no copy.",
};
