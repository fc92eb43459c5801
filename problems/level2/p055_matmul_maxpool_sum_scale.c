/* L2/55 55_Matmul_MaxPool_Sum_Scale:
 * y = torch.sum(max_pool1d(matmul(x).unsqueeze(1), 2).squeeze(1), dim=1) * 0.5. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_055 = {
    .level = 2,
    .id = 55,
    .name = "55_Matmul_MaxPool_Sum_Scale",
    .dims = {{"batch_size", 128, 3}, {"in_features", 32768, 7}, {"out_features", 32768, 9}},
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
        {"in_features", "in_features"}, {"out_features", "out_features"}, {"kernel_size", "2"},
        {"scale_factor", "0.5"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_UNSQUEEZE, .args = {"mm"}, .out = "mm3", .i = {1}},
        {.op = KBV_OP_MAX_POOL1D, .args = {"mm3"}, .out = "pooled3", .s = "kernel_size=2"},
        {.op = KBV_OP_SQUEEZE, .args = {"pooled3"}, .out = "pooled", .i = {1}},
        {.op = KBV_OP_SUM, .args = {"pooled"}, .out = "total", .i = {1, 0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"total"}, .out = "y", .f = {0.5}},
    },
    .notes = "nn.MaxPool1d(2): stride 2, pairs of adjacent features; the small size has an odd "
             "out_features, so the last feature falls out of every window, as PyTorch's floor "
             "rule drops it. The output is one number per row, a sum over out_features / 2 maxima.",
};
