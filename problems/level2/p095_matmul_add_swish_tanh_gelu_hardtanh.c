/* L2/95 95_Matmul_Add_Swish_Tanh_GELU_Hardtanh:
 * a = matmul(x) + add_value; y = hardtanh(gelu(tanh(sigmoid(a) * a)), -1, 1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_095 = {
    .level = 2,
    .id = 95,
    .name = "95_Matmul_Add_Swish_Tanh_GELU_Hardtanh",
    .dims = {{"batch_size", 1024, 3}, {"in_features", 8192, 7}, {"out_features", 8192, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "add_value", .dtype = KBV_F32, .shape = {"out_features"}, .init = KBV_INIT_RANDN},
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {
        {"in_features", "in_features"}, {"out_features", "out_features"},
        {"add_value_shape", "(out_features,)"},
    },
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_ADD, .args = {"mm", "add_value"}, .out = "added"},
        {.op = KBV_OP_SIGMOID, .args = {"added"}, .out = "sig"},
        {.op = KBV_OP_MUL, .args = {"sig", "added"}, .out = "swish"},
        {.op = KBV_OP_TANH, .args = {"swish"}, .out = "th"},
        {.op = KBV_OP_GELU, .args = {"th"}, .out = "g"},
        {.op = KBV_OP_HARDTANH, .args = {"g"}, .out = "y", .f = {-1.0, 1.0}},
    },
    .notes = "The final hardtanh never binds: gelu of tanh's (-1, 1) lies in (-0.17, 0.85). "
             "add_value is an N(0,1) Parameter per feature.",
};
