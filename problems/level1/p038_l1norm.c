/* L1/38 38_L1Norm_: y = x / torch.mean(torch.abs(x), dim=1, keepdim=True). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_038 = {
    .level = 1,
    .id = 38,
    .name = "38_L1Norm_",
    .dims = {{"batch_size", 32768, 37}, {"dim", 65535, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_ABS, .args = {"x"}, .out = "a"},
        {.op = KBV_OP_MEAN, .args = {"a"}, .out = "m", .i = {1, 1}},
        {.op = KBV_OP_DIV, .args = {"x", "m"}, .out = "y"},
    },
    .notes = "The paper's copy divides by the mean (not the sum) of |x| along dim 1; eager PyTorch "
             "materialises |x| (as large as x).",
};
