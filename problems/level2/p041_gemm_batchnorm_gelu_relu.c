/* L2/41 41_Gemm_BatchNorm_GELU_ReLU: y = relu(gelu(batch_norm(gemm(x)))),
 * gemm = nn.Linear(4096, 4096), batch_norm = nn.BatchNorm1d(4096) in training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_041 = {
    .level = 2,
    .id = 41,
    .name = "41_Gemm_BatchNorm_GELU_ReLU",
    .dims = {{"batch_size", 16384, 5}, {"in_features", 4096, 37}, {"out_features", 4096, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "gemm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gemm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "batch_norm.weight", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES},
        {.name = "batch_norm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS},
        {.name = "batch_norm.running_mean", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "batch_norm.running_var", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "gemm.weight", "gemm.bias"}, .out = "lin"},
        {.op = KBV_OP_BATCH_NORM, .args = {"lin", "batch_norm.weight", "batch_norm.bias"}, .out = "bn", .f = {1e-5, 0.1}},
        {.op = KBV_OP_GELU, .args = {"bn"}, .out = "g"},
        {.op = KBV_OP_RELU, .args = {"g"}, .out = "y"},
    },
    .notes = "BatchNorm1d in training mode: each feature normalised with the batch statistics "
             "(biased variance, eps 1e-5), which also cancels the gemm bias; the running stats "
             "PyTorch's module updates never affect the output, so the rendering calls "
             "F.batch_norm without them (num_batches_tracked is not listed). The ReLU after GELU "
             "zeroes GELU's small negative lobe: about half the outputs are 0.",
};
