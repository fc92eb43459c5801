/* L1/37 37_FrobeniusNorm_: y = x / torch.norm(x, p='fro') (one global scalar). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_037 = {
    .level = 1,
    .id = 37,
    .name = "37_FrobeniusNorm_",
    .dims = {{"batch_size", 112, 3}, {"features", 64, 5}, {"dim1", 512, 7}, {"dim2", 512, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_NORM_FRO, .args = {"x"}, .out = "norm"},
        {.op = KBV_OP_DIV, .args = {"x", "norm"}, .out = "y"},
    },
    .notes = "Outputs are below ~4e-5 (the global norm is ~2.5e4), so an all-zero output passes "
             "allclose atol 1e-4 (KernelBench issue #165); the strict protocol's relative error "
             "does not.",
};
