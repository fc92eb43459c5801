/* L1/11 11_4D_tensor_matrix_multiplication: C = torch.einsum("bijl,lk->bijk", A, B). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_011 = {
    .level = 1,
    .id = 11,
    .name = "11_4D_tensor_matrix_multiplication",
    .dims = {{"b", 8, 2}, {"i", 256, 5}, {"j", 512, 7}, {"l", 256, 13}, {"k", 768, 11}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"b", "i", "j", "l"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"l", "k"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_EINSUM, .args = {"A", "B"}, .out = "C", .s = "bijl,lk->bijk"},
    },
};
