/* L1/92 92_cumsum_exclusive: y = torch.cumsum(torch.cat((zeros column, x), dim=1)[:-1], dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_092 = {
    .level = 1,
    .id = 92,
    .name = "92_cumsum_exclusive",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_ZEROS_SLICE, .args = {"x"}, .out = "zeros", .i = {1}},
        {.op = KBV_OP_CAT, .args = {"zeros", "x"}, .out = "padded", .i = {1}},
        {.op = KBV_OP_DROP_LAST, .args = {"padded"}, .out = "rows"},
        {.op = KBV_OP_CUMSUM, .args = {"rows"}, .out = "y", .i = {1}},
    },
    .notes = "The paper's version keeps the upstream bug: [:-1] drops the last row (dim 0), not "
             "the last column, so the output is [batch_size - 1, input_size + 1] (sic); upstream "
             "later fixed it (commit 6bab08b).",
};
