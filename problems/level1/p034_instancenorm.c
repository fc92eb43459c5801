/* L1/34 34_InstanceNorm: y = nn.InstanceNorm2d(64)(x): per (n, c), no affine. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_034 = {
    .level = 1,
    .id = 34,
    .name = "34_InstanceNorm",
    .dims = {{"batch_size", 112, 3}, {"features", 64, 5}, {"dim1", 512, 7}, {"dim2", 512, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"num_features", "features"}},
    .nodes = {
        {.op = KBV_OP_INSTANCE_NORM, .args = {"x"}, .out = "y", .f = {1e-5}},
    },
    .notes = "nn.InstanceNorm2d defaults: affine=False, track_running_stats=False, eps 1e-5; "
             "statistics per (sample, channel) over the 512x512 plane, biased variance.",
};
