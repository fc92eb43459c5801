/* L1/53 53_Min_reduction_over_a_dimension: y = torch.min(x, dim=1).values. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_053 = {
    .level = 1,
    .id = 53,
    .name = "53_Min_reduction_over_a_dimension",
    .dims = {{"batch_size", 128, 3}, {"dim1", 4096, 37}, {"dim2", 4095, 41}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_MIN, .args = {"x"}, .out = "y", .i = {1, 0}},
    },
    .notes = "Outputs are ~2.4e-4 (the minimum of 4096 uniforms): zeros pass the bf16 tolerance 1e-2 (KernelBench issue #165), not fp32's 1e-3.",
};
