/* L1/46 46_Average_Pooling_3D: y = F.avg_pool3d(x, kernel_size=3, stride=2, padding=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_046 = {
    .level = 1,
    .id = 46,
    .name = "46_Average_Pooling_3D",
    .dims = {
        {"batch_size", 16, 2},
        {"channels", 32, 3},
        {"depth", 128, 7},
        {"height", 128, 9},
        {"width", 256, 11},
    },
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "channels", "depth", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {{"kernel_size", "3"}, {"stride", "2"}, {"padding", "1"}},
    .nodes = {
        {.op = KBV_OP_AVG_POOL3D,
         .args = {"x"},
         .out = "y",
         .s = "kernel_size=3, stride=2, padding=1"},
    },
    .notes = "count_include_pad=True (the default): windows overlapping the padding divide by 27.",
};
