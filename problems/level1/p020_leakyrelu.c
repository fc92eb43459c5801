/* L1/20 20_LeakyReLU: y = F.leaky_relu(x, negative_slope=0.01). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_020 = {
    .level = 1,
    .id = 20,
    .name = "20_LeakyReLU",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_LEAKY_RELU, .args = {"x"}, .out = "y", .f = {0.01}},
    },
    .notes = "Inputs are uniform [0,1): leaky_relu is the identity on them.",
};
