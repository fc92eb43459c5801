/* L1/93 93_masked_cumsum: y = torch.cumsum(x * mask, dim=1) with a bool mask. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_093 = {
    .level = 1,
    .id = 93,
    .name = "93_masked_cumsum",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
        {.name = "mask", .dtype = KBV_BOOL, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RANDINT, .low = 0, .high = 2},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_MUL_MASK, .args = {"x", "mask"}, .out = "masked"},
        {.op = KBV_OP_CUMSUM, .args = {"masked"}, .out = "y", .i = {1}},
    },
    .notes = "The mask is torch.randint(0, 2, shape).bool() and reaches the candidate as bool (1 "
             "byte per element); KernelBench's harness casts every input to the precision dtype, "
             "which gives the same product x * mask.",
};
