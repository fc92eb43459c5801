/* L1/5 5_Matrix_scalar_multiplication: C = A * s with s the Python float 3.14. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_005 = {
    .level = 1,
    .id = 5,
    .name = "5_Matrix_scalar_multiplication",
    .dims = {{"M", 65536, 37}, {"N", 16384, 61}},
    .inputs = {
        {.name = "A", .dtype = KBV_F32, .shape = {"M", "N"}, .gen = KBV_GEN_RAND},
        {.name = "s", .dtype = KBV_F32, .gen = KBV_GEN_SCALAR, .value = 3.14},
    },
    .nodes = {
        {.op = KBV_OP_MUL, .args = {"A", "s"}, .out = "C"},
    },
    .notes = "The second forward() argument is the Python float 3.14 (a 0-dim input that is never "
             "redrawn or scaled).",
};
