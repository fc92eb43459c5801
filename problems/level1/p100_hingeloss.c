/* L1/100 100_HingeLoss: y = torch.mean(torch.clamp(1 - predictions * targets, min=0)). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_100 = {
    .level = 1,
    .id = 100,
    .name = "100_HingeLoss",
    .dims = {{"batch_size", 32768, 61}},
    .inputs = {
        {.name = "predictions", .dtype = KBV_F32, .shape = {"batch_size", "batch_size"}, .gen = KBV_GEN_RAND},
        {.name = "targets", .dtype = KBV_F32, .shape = {"batch_size"}, .gen = KBV_GEN_RANDINT, .structure = KBV_STRUCT_SIGNS, .low = 0, .high = 2},
    },
    .nodes = {
        {.op = KBV_OP_MUL, .args = {"predictions", "targets"}, .out = "prod"},
        {.op = KBV_OP_RSUB_SCALAR, .args = {"prod"}, .out = "margin", .f = {1.0}},
        {.op = KBV_OP_CLAMP_MIN, .args = {"margin"}, .out = "hinge", .f = {0.0}},
        {.op = KBV_OP_MEAN_ALL, .args = {"hinge"}, .out = "y"},
    },
    .hidden = {.extra = {{.label = "H5", .input = "targets", .pattern = KBV_PATTERN_ALT_SIGNS,
                          .what = "the paper's fifth hidden config: targets alternating -1, +1 "
                                  "(torch.ones(batch_size), every other one -1 from the first), "
                                  "predictions a fresh draw, unscaled; it catches a kernel that "
                                  "broadcasts targets along the wrong axis"}}},
    .notes = "targets = torch.randint(0, 2, (batch_size,)).float() * 2 - 1: +-1 under the base "
             "draws and D5-D8; D1-D4 scale them with the predictions (+-3, +-0.01, -+1), as the "
             "paper's hidden tests scale every float tensor get_inputs() returns. predictions "
             "are [batch_size, 32768] with 32768 = batch_size, so the [batch_size] targets "
             "broadcast along the last dim (the original's quirk: target j scales column j); "
             "eager PyTorch holds two full-size temporaries.",
};
