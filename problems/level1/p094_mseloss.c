/* L1/94 94_MSELoss: y = torch.mean((predictions - targets) ** 2). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_094 = {
    .level = 1,
    .id = 94,
    .name = "94_MSELoss",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "predictions", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED},
        {.name = "targets", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SUB, .args = {"predictions", "targets"}, .out = "diff"},
        {.op = KBV_OP_POW_SCALAR, .args = {"diff"}, .out = "sq", .f = {2.0}},
        {.op = KBV_OP_MEAN_ALL, .args = {"sq"}, .out = "y"},
    },
    .notes = "predictions = torch.rand(...) * torch.rand(()): one random scale per draw. The "
             "module is written elementwise, so eager PyTorch holds two full-size temporaries.",
};
