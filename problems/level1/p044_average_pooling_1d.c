/* L1/44 44_Average_Pooling_1D: y = F.avg_pool1d(x, kernel_size=8, stride=1, padding=4). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_044 = {
    .level = 1,
    .id = 44,
    .name = "44_Average_Pooling_1D",
    .dims = {{"batch_size", 64, 3}, {"in_channels", 128, 5}, {"input_length", 65536, 37}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "in_channels", "input_length"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {{"kernel_size", "8"}, {"stride", "1"}, {"padding", "4"}},
    .nodes = {
        {.op = KBV_OP_AVG_POOL1D,
         .args = {"x"},
         .out = "y",
         .s = "kernel_size=8, stride=1, padding=4"},
    },
    .notes = "count_include_pad=True (the default): windows overlapping the padding divide by 8.",
};
