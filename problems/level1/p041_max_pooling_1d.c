/* L1/41 41_Max_Pooling_1D: y = F.max_pool1d(x, kernel_size=8, stride=1, padding=4, dilation=3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_041 = {
    .level = 1,
    .id = 41,
    .name = "41_Max_Pooling_1D",
    .dims = {{"batch_size", 64, 3}, {"features", 192, 5}, {"sequence_length", 65536, 37}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "features", "sequence_length"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {
        {"kernel_size", "8"}, {"stride", "1"}, {"padding", "4"}, {"dilation", "3"},
        {"return_indices", "False"},
    },
    .nodes = {
        {.op = KBV_OP_MAX_POOL1D,
         .args = {"x"},
         .out = "y",
         .s = "kernel_size=8, stride=1, padding=4, dilation=3"},
    },
    .notes = "PyTorch's CUDA max pooling also writes int64 indices (max_pool*_with_indices) and so "
             "peaks at three times the output; kbv's baseline computes the values only.",
};
