/* L1/43 43_Max_Pooling_3D: y = F.max_pool3d(x, kernel_size=3, stride=2, padding=1, dilation=3). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_043 = {
    .level = 1,
    .id = 43,
    .name = "43_Max_Pooling_3D",
    .dims = {
        {"batch_size", 16, 2},
        {"channels", 32, 3},
        {"dim1", 128, 9},
        {"dim2", 128, 11},
        {"dim3", 128, 13},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "channels", "dim1", "dim2", "dim3"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {{"kernel_size", "3"}, {"stride", "2"}, {"padding", "1"}, {"dilation", "3"}},
    .nodes = {
        {.op = KBV_OP_MAX_POOL3D,
         .args = {"x"},
         .out = "y",
         .s = "kernel_size=3, stride=2, padding=1, dilation=3"},
    },
    .notes = "PyTorch's CUDA max pooling also writes int64 indices (max_pool*_with_indices) and so "
             "peaks at three times the output; kbv's baseline computes the values only.",
};
