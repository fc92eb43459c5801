/* L2/97 97_Matmul_BatchNorm_BiasAdd_Divide_Swish:
 * b = (bn(matmul(x)) + bias) / 1.0; y = b * torch.sigmoid(b), training mode. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_097 = {
    .level = 2,
    .id = 97,
    .name = "97_Matmul_BatchNorm_BiasAdd_Divide_Swish",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bias", .dtype = KBV_F32, .shape = {"1"}, .init = KBV_INIT_RANDN},
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "bn.weight", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ONES},
        {.name = "bn.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_ZEROS},
        {.name = "bn.running_mean", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ZEROS, .is_buffer = 1},
        {.name = "bn.running_var", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_ONES, .is_buffer = 1},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"bn_eps", "1e-05"},
        {"bn_momentum", "0.1"}, {"bias_shape", "(1,)"}, {"divide_value", "1.0"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_BATCH_NORM, .args = {"mm", "bn.weight", "bn.bias"}, .out = "bn",
         .f = {1e-5, 0.1}},
        {.op = KBV_OP_ADD, .args = {"bn", "bias"}, .out = "biased"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"biased"}, .out = "div", .f = {1.0}},
        {.op = KBV_OP_SIGMOID, .args = {"div"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"div", "sig"}, .out = "y"},
    },
    .notes = "BatchNorm1d in training mode on the 2-D GEMM output: statistics per feature over "
             "the batch (biased variance, eps 1e-5); the running-stat update never affects the "
             "output and the rendering leaves it out; the batch mean removes matmul.bias exactly. "
             "bias is a single N(0,1) Parameter of shape [1] added to every element; the "
             "division by 1.0 is exact (kept as the module runs it).",
};
