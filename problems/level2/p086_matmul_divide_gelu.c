/* L2/86 86_Matmul_Divide_GELU: y = F.gelu(linear(x) / 10.0). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_086 = {
    .level = 2,
    .id = 86,
    .name = "86_Matmul_Divide_GELU",
    .dims = {{"batch_size", 1024, 3}, {"input_size", 8192, 7}, {"output_size", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear.weight", .dtype = KBV_F32, .shape = {"output_size", "input_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear.bias", .dtype = KBV_F32, .shape = {"output_size"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"input_size", "input_size"}, {"output_size", "output_size"}, {"divisor", "10.0"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear.weight", "linear.bias"}, .out = "lin"},
        {.op = KBV_OP_DIV_SCALAR, .args = {"lin"}, .out = "div", .f = {10.0}},
        {.op = KBV_OP_GELU, .args = {"div"}, .out = "y"},
    },
    .notes = "x / 10.0 is a true division, which rounds differently from x * 0.1.",
};
