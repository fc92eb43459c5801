/* L1/32 32_HardTanh: y = F.hardtanh(x, min_val=-1.0, max_val=1.0). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_032 = {
    .level = 1,
    .id = 32,
    .name = "32_HardTanh",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_HARDTANH, .args = {"x"}, .out = "y", .f = {-1.0, 1.0}},
    },
    .notes = "Inputs are uniform [0,1): hardtanh(-1, 1) is the identity on them.",
};
