/* L1/7 7_Matmul_with_small_K_dimension_: C = A @ B with a small inner dimension. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_007 = {
    .level = 1,
    .id = 7,
    .name = "7_Matmul_with_small_K_dimension_",
    .dims = {{"M", 32768, 61}, {"N", 32768, 67}, {"K", 64, 5}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "K"}, .gen = KBV_GEN_RAND},
        {.name = "B", .dtype = KBV_F32, .shape = {"K", "N"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_MATMUL, .args = {"A", "B"}, .out = "C"},
    },
};
