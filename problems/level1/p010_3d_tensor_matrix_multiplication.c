/* L1/10 10_3D_tensor_matrix_multiplication: C = torch.matmul(A, B), [N,M,K] x [K,L]. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_010 = {
    .level = 1,
    .id = 10,
    .name = "10_3D_tensor_matrix_multiplication",
    .dims = {{"N", 16, 3}, {"M", 1024, 19}, {"K", 2048, 23}, {"L", 768, 17}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"N", "M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "L"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
