/* L1/96 96_HuberLoss: y = F.smooth_l1_loss(predictions, targets) (beta 1, mean). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_096 = {
    .level = 1,
    .id = 96,
    .name = "96_HuberLoss",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "predictions", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED},
        {.name = "targets", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SMOOTH_L1, .args = {"predictions", "targets"}, .out = "y", .f = {1.0}},
    },
    .notes = "predictions = torch.rand(...) * torch.rand(()): one random scale per draw. With "
             "inputs in [0, 1) every |difference| is below beta = 1: the quadratic branch.",
};
