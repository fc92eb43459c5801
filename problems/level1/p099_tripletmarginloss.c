/* L1/99 99_TripletMarginLoss: y = nn.TripletMarginLoss(margin=1.0)(anchor, positive, negative). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_099 = {
    .level = 1,
    .id = 99,
    .name = "99_TripletMarginLoss",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 8192, 301}},
    .inputs = {
        {.name = "anchor", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED},
        {.name = "positive", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
        {.name = "negative", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"margin", "1.0"}},
    .nodes = {
        {.op = KBV_OP_TRIPLET_MARGIN, .args = {"anchor", "positive", "negative"}, .out = "y", .f = {1.0, 2.0, 1e-6}},
    },
    .notes = "anchor = torch.rand(...) * torch.rand(()). Defaults p=2, eps=1e-6 (added to each "
             "difference, as F.pairwise_distance does), swap=False, mean over the batch.",
};
