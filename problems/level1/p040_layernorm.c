/* L1/40 40_LayerNorm: y = nn.LayerNorm((64, 256, 256))(x). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_040 = {
    .level = 1,
    .id = 40,
    .name = "40_LayerNorm",
    .dims = {{"batch_size", 16, 3}, {"features", 64, 5}, {"dim1", 256, 7}, {"dim2", 256, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "ln.weight", .dtype = KBV_F32, .shape = {"features", "dim1", "dim2"}, .init = KBV_INIT_ONES},
        {.name = "ln.bias", .dtype = KBV_F32, .shape = {"features", "dim1", "dim2"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {{"normalized_shape", "(features, dim1, dim2)"}},
    .nodes = {
        {.op = KBV_OP_LAYER_NORM, .args = {"x", "ln.weight", "ln.bias"}, .out = "y", .f = {1e-5}},
    },
    .notes = "Each sample normalised over its 64x256x256 = 4 Mi elements (biased variance, eps "
             "1e-5), then the elementwise affine of the same shape.",
};
