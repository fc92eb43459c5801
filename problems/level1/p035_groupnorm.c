/* L1/35 35_GroupNorm_: y = nn.GroupNorm(num_groups=8, num_channels=64)(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_035 = {
    .level = 1,
    .id = 35,
    .name = "35_GroupNorm_",
    .dims = {{"batch_size", 112, 3}, {"features", 64, 16}, {"dim1", 512, 5}, {"dim2", 512, 7}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gn.weight", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ONES},
        {.name = "gn.bias", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {{"num_features", "features"}, {"num_groups", "8"}},
    .nodes = {
        {.op = KBV_OP_GROUP_NORM, .args = {"x", "gn.weight", "gn.bias"}, .out = "y", .i = {8}, .f = {1e-5}},
    },
    .notes = "8 groups of channels, statistics per (sample, group), biased variance, eps 1e-5, "
             "then the per-channel affine. The CI size keeps 8 groups (16 channels: two per group).",
};
