/* L1/42 42_Max_Pooling_2D: y = F.max_pool2d(x, kernel_size=4, stride=1, padding=1, dilation=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_042 = {
    .level = 1,
    .id = 42,
    .name = "42_Max_Pooling_2D",
    .dims = {{"batch_size", 32, 2}, {"channels", 64, 3}, {"height", 512, 11}, {"width", 512, 13}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {{"kernel_size", "4"}, {"stride", "1"}, {"padding", "1"}, {"dilation", "1"}},
    .nodes = {
        {.op = KBV_OP_MAX_POOL2D,
         .args = {"x"},
         .out = "y",
         .s = "kernel_size=4, stride=1, padding=1, dilation=1"},
    },
    .notes = "PyTorch's CUDA max pooling also writes int64 indices (max_pool*_with_indices) and so "
             "peaks at three times the output; kbv's baseline computes the values only.",
};
