/* L1/33 33_BatchNorm: y = nn.BatchNorm2d(64)(x) in training mode (batch statistics). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_033 = {
    .level = 1,
    .id = 33,
    .name = "33_BatchNorm",
    .dims = {{"batch_size", 64, 3}, {"features", 64, 5}, {"dim1", 512, 7}, {"dim2", 512, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "features", "dim1", "dim2"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bn.weight", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ONES},
        {.name = "bn.bias", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ZEROS},
        {.name = "bn.running_mean", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "bn.running_var", .dtype = KBV_F32, .shape = {"features"}, .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {{"num_features", "features"}},
    .nodes = {
        {.op = KBV_OP_BATCH_NORM, .args = {"x", "bn.weight", "bn.bias"}, .out = "y", .f = {1e-5, 0.1}},
    },
    .notes = "Training mode: normalised with the batch statistics (biased variance, eps 1e-5). "
             "PyTorch's module also updates bn.running_mean/bn.running_var each call, which never "
             "affects the output; candidates must not write params, so the rendering calls "
             "F.batch_norm with running stats None (same output, no update). The buffers stay in "
             "the state_dict (num_batches_tracked is not listed, as in the catalog).",
};
