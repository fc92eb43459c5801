/* L1/3 3_Batched_matrix_multiplication: C = torch.bmm(A, B), [b,m,k] x [b,k,n]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_003 = {
    .level = 1,
    .id = 3,
    .name = "3_Batched_matrix_multiplication",
    .dims = {{"batch_size", 128, 3}, {"m", 512, 33}, {"k", 1024, 47}, {"n", 2048, 29}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"batch_size", "m", "k"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"batch_size", "k", "n"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_BMM, .args = {"A", "B"}, .out = "C"},
    },
};
