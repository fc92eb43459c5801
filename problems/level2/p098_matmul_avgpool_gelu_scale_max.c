/* L2/98 98_Matmul_AvgPool_GELU_Scale_Max:
 * y = torch.max(F.gelu(avg_pool1d(matmul(x).unsqueeze(1), 16).squeeze(1)) * 2.0, dim=1).values. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_098 = {
    .level = 2,
    .id = 98,
    .name = "98_Matmul_AvgPool_GELU_Scale_Max",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 53}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"pool_kernel_size", "16"}, {"scale_factor", "2.0"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_UNSQUEEZE, .args = {"mm"}, .out = "mm3", .i = {1}},
        {.op = KBV_OP_AVG_POOL1D, .args = {"mm3"}, .out = "pooled3", .s = "kernel_size=16"},
        {.op = KBV_OP_SQUEEZE, .args = {"pooled3"}, .out = "pooled", .i = {1}},
        {.op = KBV_OP_GELU, .args = {"pooled"}, .out = "g"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"g"}, .out = "scaled", .f = {2.0}},
        {.op = KBV_OP_MAX, .args = {"scaled"}, .out = "y", .i = {1, 0}},
    },
    .notes = "nn.AvgPool1d(16): stride 16, floor; the small size has 53 features, so 3 windows "
             "and the last 5 features fall out. The output is one maximum per row.",
};
