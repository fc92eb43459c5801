/* L1/36 36_RMSNorm_: y = x / sqrt(mean(x ** 2, dim=1, keepdim=True) + eps), eps = 1e-5. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_036 = {
    .level = 1,
    .id = 36,
    .name = "36_RMSNorm_",
    .dims = {{"batch_size", 112, 3}, {"features", 64, 5}, {"dim1", 512, 7}, {"dim2", 512, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .init_args = {{"num_features", "features"}},
    .nodes = {
        {.op = KBV_OP_POW_SCALAR, .args = {"x"}, .out = "sq", .f = {2.0}},
        {.op = KBV_OP_MEAN, .args = {"sq"}, .out = "ms", .i = {1, 1}},
        {.op = KBV_OP_ADD_SCALAR, .args = {"ms"}, .out = "mse", .f = {1e-5}},
        {.op = KBV_OP_SQRT, .args = {"mse"}, .out = "rms"},
        {.op = KBV_OP_DIV, .args = {"x", "rms"}, .out = "y"},
    },
    .notes = "RMS over the channel dim (dim 1), written as PyTorch eager runs the module: x ** 2, "
             "the mean, + eps, sqrt, then a broadcast division (the x ** 2 temporary is as large "
             "as x).",
};
