/* L1/88 88_MinGPTNewGelu: y = 0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_088 = {
    .level = 1,
    .id = 88,
    .name = "88_MinGPTNewGelu",
    .dims = {{"batch_size", 8192, 37}, {"dim", 8192, 61}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "dim"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        /* Python evaluates 0.5 * x first, then the bracket, left to right */
        {.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "half_x", .f = {0.5}},
        {.op = KBV_OP_POW_SCALAR, .args = {"x"}, .out = "cube", .f = {3.0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"cube"}, .out = "cube_c", .f = {0.044715}},
        {.op = KBV_OP_ADD, .args = {"x", "cube_c"}, .out = "inner"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"inner"}, .out = "scaled", .f = {0.7978845608028654}},
        {.op = KBV_OP_TANH, .args = {"scaled"}, .out = "t"},
        {.op = KBV_OP_ADD_SCALAR, .args = {"t"}, .out = "one_t", .f = {1.0}},
        {.op = KBV_OP_MUL, .args = {"half_x", "one_t"}, .out = "y"},
    },
    .notes = "The tanh approximation of GELU written elementwise, so eager PyTorch runs eight "
             "kernels with full-size temporaries; math.sqrt(2.0 / math.pi) = 0.7978845608028654. "
             "torch.pow(x, 3.0) is x * x * x, as PyTorch evaluates that exponent.",
};
