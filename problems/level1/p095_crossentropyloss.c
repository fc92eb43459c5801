/* L1/95 95_CrossEntropyLoss: y = F.cross_entropy(predictions, targets), int64 targets. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_095 = {
    .level = 1,
    .id = 95,
    .name = "95_CrossEntropyLoss",
    .dims = {{"batch_size", 32768, 7}, {"num_classes", 4096, 4096}},
    .inputs = {
        {.name = "predictions", .dtype = KBV_F32, .shape = {"batch_size", "num_classes"}, .gen = KBV_GEN_RAND},
        {.name = "targets", .dtype = KBV_I64, .shape = {"batch_size"}, .gen = KBV_GEN_RANDINT, .low = 0, .high = 4096},
    },
    .nodes = {
        {.op = KBV_OP_CROSS_ENTROPY, .args = {"predictions", "targets"}, .out = "y"},
    },
    .notes = "targets are int64 class indices from torch.randint(0, 4096) and stay int64 (the "
             "KernelBench harness casts them to float, which makes the reference fail: its issue "
             "#151). The CI size keeps the 4096 classes, so targets stay in range.",
};
