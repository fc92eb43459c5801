/* L1/45 45_Average_Pooling_2D:
 * y = F.avg_pool2d(x, kernel_size=11): stride defaults to the kernel size. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_045 = {
    .level = 1,
    .id = 45,
    .name = "45_Average_Pooling_2D",
    .dims = {{"batch_size", 16, 2}, {"channels", 64, 3}, {"height", 2048, 25}, {"width", 2048, 35}},
    .inputs = {
        {.name = "x",
         .dtype = KBV_F32,
         .shape = {"batch_size", "channels", "height", "width"},
         .gen = KBV_GEN_RAND},
    },
    .init_args = {{"kernel_size", "11"}},
    .nodes = {
        {.op = KBV_OP_AVG_POOL2D, .args = {"x"}, .out = "y", .s = "kernel_size=11"},
    },
    .notes = "2048 = 186 * 11 + 2: the last two rows and columns are in no window.",
};
