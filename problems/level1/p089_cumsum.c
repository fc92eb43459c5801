/* L1/89 89_cumsum: y = torch.cumsum(x, dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_089 = {
    .level = 1,
    .id = 89,
    .name = "89_cumsum",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_CUMSUM, .args = {"x"}, .out = "y", .i = {1}},
    },
    .notes = "Row sums reach ~1.6e4: fp32 accumulation-order differences are large in absolute terms (the relative tolerance still applies).",
};
