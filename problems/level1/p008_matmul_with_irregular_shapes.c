/* L1/8 8_Matmul_with_irregular_shapes_: C = A @ B with sizes off every tile. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_008 = {
    .level = 1,
    .id = 8,
    .name = "8_Matmul_with_irregular_shapes_",
    .dims = {{"M", 8205, 41}, {"K", 2949, 23}, {"N", 5921, 37}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
