/* L2/33 33_Gemm_Scale_BatchNorm: y = bn(gemm(x) * scale), gemm = nn.Linear(8192, 8192),
 * bn = nn.BatchNorm1d(8192, eps=1e-5, momentum=0.1) in training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_033 = {
    .level = 2,
    .id = 33,
    .name = "33_Gemm_Scale_BatchNorm",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "scale", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "bn.weight", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES},
        {.name = "bn.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS},
        {.name = "bn.running_mean", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "bn.running_var", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    /* eps=1e-5 and momentum=0.1 are left at the constructor's defaults */
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"scale_shape", "(out_features,)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "lin"},
        {.op = KBV_OP_MUL, .args = {"lin", "scale"}, .out = "scaled"},
        {.op = KBV_OP_BATCH_NORM, .args = {"scaled", "bn.weight", "bn.bias"}, .out = "y", .f = {1e-5, 0.1}},
    },
    .notes = "BatchNorm1d in training mode: each feature normalised with the batch statistics "
             "(biased variance, eps 1e-5); the running stats PyTorch's module updates never "
             "affect the output, so the rendering calls F.batch_norm without them "
             "(num_batches_tracked is not listed). scale is standard normal (torch.randn); the "
             "normalisation cancels it up to its sign and eps (and the gemm bias entirely), so the "
             "output is close to the normalised gemm output with some features negated.",
};
