/* L1/12 12_Matmul_with_diagonal_matrices_: C = torch.diag(A) @ B, the diagonal matrix materialised. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_012 = {
    .level = 1,
    .id = 12,
    .name = "12_Matmul_with_diagonal_matrices_",
    .dims = {{"N", 4096, 33}, {"M", 4096, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"N", "M"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_DIAG, .args = {"A"}, .out = "D"},
        {.op = KBV_OP_MATMUL, .args = {"D", "B"}, .out = "C"},
    },
    .notes = "As in the paper's copy, the reference materialises torch.diag(A) as an N x N matrix "
             "and multiplies (KernelBench v0.2 broadcasts instead); mathematically it scales the "
             "rows of B by A.",
};
