/* L1/24 24_LogSoftmax: y = torch.log_softmax(x, dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_024 = {
    .level = 1,
    .id = 24,
    .name = "24_LogSoftmax",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_LOG_SOFTMAX, .args = {"x"}, .out = "y", .i = {1}},
    },
};
