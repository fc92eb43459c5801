/* L2/62 62_Matmul_GroupNorm_LeakyReLU_Sum:
 * h = leaky_relu(gn(fc(x)), 0.01); y = h + h. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_062 = {
    .level = 2,
    .id = 62,
    .name = "62_Matmul_GroupNorm_LeakyReLU_Sum",
    .dims = {{"batch_size", 1024, 3}, {"input_size", 8192, 7}, {"hidden_size", 8192, 1536}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "fc.weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "fc.bias", .dtype = KBV_F32, .shape = {"hidden_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "gn.weight", .dtype = KBV_F32, .shape = {"hidden_size"}, .init = KBV_INIT_ONES},
        {.name = "gn.bias", .dtype = KBV_F32, .shape = {"hidden_size"}, .init = KBV_INIT_ZEROS},
    },
    .init_args = {{"input_size", "input_size"}, {"hidden_size", "hidden_size"}, {"num_groups", "512"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "fc.weight", "fc.bias"}, .out = "fc"},
        {.op = KBV_OP_GROUP_NORM, .args = {"fc", "gn.weight", "gn.bias"}, .out = "gn",
         .i = {512}, .f = {1e-5}},
        {.op = KBV_OP_LEAKY_RELU, .args = {"gn"}, .out = "lr", .f = {0.01}},
        {.op = KBV_OP_ADD, .args = {"lr", "lr"}, .out = "y"},
    },
    .notes = "GroupNorm over the 2-D GEMM output: 512 groups of hidden_size / 512 features per "
             "row (16 at full size). The group count is fixed, so the small size keeps 512 groups "
             "with 3 features each (1536). The \"Sum\" is x + x (exact doubling).",
};
