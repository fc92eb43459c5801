/* L1/91 91_cumsum_reverse: y = torch.cumsum(x.flip(1), 1).flip(1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_091 = {
    .level = 1,
    .id = 91,
    .name = "91_cumsum_reverse",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_FLIP, .args = {"x"}, .out = "flipped", .i = {1}},
        {.op = KBV_OP_CUMSUM, .args = {"flipped"}, .out = "scan", .i = {1}},
        {.op = KBV_OP_FLIP, .args = {"scan"}, .out = "y", .i = {1}},
    },
    .notes = "A reverse cumsum: flip is a copy in PyTorch, so eager runs three kernels with two "
             "full-size temporaries.",
};
