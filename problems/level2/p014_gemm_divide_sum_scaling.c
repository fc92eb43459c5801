/* L2/14 14_Gemm_Divide_Sum_Scaling:
 * y = torch.sum(torch.matmul(x, weight.T) / 2, dim=1, keepdim=True) * 1.5. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_014 = {
    .level = 2,
    .id = 14,
    .name = "14_Gemm_Divide_Sum_Scaling",
    .dims = {{"batch_size", 1024, 5}, {"input_size", 8192, 37}, {"hidden_size", 8192, 19}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"}, .init = KBV_INIT_RANDN},
    },
    .init_args = {{"input_size", "input_size"}, {"hidden_size", "hidden_size"}, {"scaling_factor", "1.5"}},
    .nodes = {
        {.op = KBV_OP_TRANSPOSE, .args = {"weight"}, .out = "weight_t"},
        {.op = KBV_OP_MATMUL, .args = {"x", "weight_t"}, .out = "prod"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"prod"}, .out = "halved", .f = {2.0}},
        {.op = KBV_OP_SUM, .args = {"halved"}, .out = "summed", .i = {1, 1}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"summed"}, .out = "y", .f = {1.5}},
    },
    .notes = "weight is nn.Parameter(torch.randn(hidden_size, input_size)): standard normal, not "
             "the Linear init, and there is no bias; x / 2 divides by the Python int 2. The output "
             "[batch, 1] is a sum of 8192 products of 8192 terms each, so it is large (|y| of "
             "order thousands) and a sum of many cancelling terms.",
};
