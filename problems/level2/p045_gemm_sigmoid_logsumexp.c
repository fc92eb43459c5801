/* L2/45 45_Gemm_Sigmoid_LogSumExp: y = torch.logsumexp(linear2(sigmoid(linear1(x))), dim=1),
 * linear1 = nn.Linear(2048, 4096), linear2 = nn.Linear(4096, 1024). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_045 = {
    .level = 2,
    .id = 45,
    .name = "45_Gemm_Sigmoid_LogSumExp",
    .dims = {
        {"batch_size", 16384, 5},
        {"input_size", 2048, 37},
        {"hidden_size", 4096, 19},
        {"output_size", 1024, 11},
    },
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "linear1.weight", .dtype = KBV_F32, .shape = {"hidden_size", "input_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear1.bias", .dtype = KBV_F32, .shape = {"hidden_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear2.weight", .dtype = KBV_F32, .shape = {"output_size", "hidden_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "linear2.bias", .dtype = KBV_F32, .shape = {"output_size"}, .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"input_size", "input_size"}, {"hidden_size", "hidden_size"}, {"output_size", "output_size"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "linear1.weight", "linear1.bias"}, .out = "h"},
        {.op = KBV_OP_SIGMOID, .args = {"h"}, .out = "s"},
        {.op = KBV_OP_LINEAR, .args = {"s", "linear2.weight", "linear2.bias"}, .out = "o"},
        {.op = KBV_OP_LOGSUMEXP, .args = {"o"}, .out = "y", .i = {1, 0}},
    },
    .notes = "Output [batch]. Nearly input-independent, though the paper keeps it: the "
             "logsumexp of 1024 values of order 0.5 is about 6.97 for every sample. Measured with "
             "KernelBench's module at its feature counts: the outputs' spread was below 1e-3 under "
             "D1-D4, so two independent inputs gave outputs within allclose(1e-3, 1e-3) of each "
             "other (a constant passes). kbv's small size, with 11 outputs, does not show it.",
};
