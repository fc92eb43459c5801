/* L1/23 23_Softmax: y = torch.softmax(x, dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_023 = {
    .level = 1,
    .id = 23,
    .name = "23_Softmax",
    .dims = {{"batch_size", 4096, 7}, {"dim", 393216, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SOFTMAX, .args = {"x"}, .out = "y", .i = {1}},
    },
    .notes = "Outputs are about 2.5e-6 (softmax over 393216 entries), so an all-zero output passes"
             " even the fp32 atol 1e-4 (KernelBench issue #165 reports it for bf16 1e-2).",
};
