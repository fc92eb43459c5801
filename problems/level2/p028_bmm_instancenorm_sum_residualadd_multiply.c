/* L2/28 28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply:
 * h = instance_norm(linear(x).unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1); y = (h + y_in) * y_in,
 * linear = nn.Linear(8192, 8192) (named bmm), nn.InstanceNorm2d(8192, eps=1e-5, momentum=0.1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_028 = {
    .level = 2,
    .id = 28,
    .name = "28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply",
    .dims = {{"batch_size", 1024, 5}, {"in_features", 8192, 37}, {"out_features", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
        {.name = "y", .dtype = KBV_F32, .shape = {"batch_size", "out_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "bmm.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "bmm.bias", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "bmm.weight", "bmm.bias"}, .out = "lin"},
        {.op = KBV_OP_UNSQUEEZE, .args = {"lin"}, .out = "u1", .i = {1}},
        {.op = KBV_OP_UNSQUEEZE, .args = {"u1"}, .out = "u2", .i = {1}},
        {.op = KBV_OP_INSTANCE_NORM, .args = {"u2"}, .out = "normed", .f = {1e-5}},
        {.op = KBV_OP_SQUEEZE, .args = {"normed"}, .out = "s1", .i = {1}},
        {.op = KBV_OP_SQUEEZE, .args = {"s1"}, .out = "s2", .i = {1}},
        {.op = KBV_OP_ADD, .args = {"s2", "y"}, .out = "summed"},
        {.op = KBV_OP_MUL, .args = {"summed", "y"}, .out = "out"},
    },
    .notes = "InstanceNorm2d(8192) sees [batch, 1, 1, 8192]: one channel, so each row of the "
             "linear output is normalised over its 8192 values (a layer norm without affine; "
             "PyTorch warns that num_features does not match and ignores it, there being no "
             "affine and no running stats). It also cancels the linear bias. Despite the name "
             "there is no bmm.",
};
