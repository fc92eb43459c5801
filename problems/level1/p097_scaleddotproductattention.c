/* L1/97 97_ScaledDotProductAttention: out = F.scaled_dot_product_attention(Q, K, V), float32. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_097 = {
    .level = 1,
    .id = 97,
    .name = "97_ScaledDotProductAttention",
    .dims = {{"batch_size", 32, 2}, {"num_heads", 32, 3}, {"sequence_length", 512, 9}, {"embedding_dimension", 1024, 15}},
    .inputs = {
        {.name = "Q", .dtype = KBV_F32, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
        {.name = "K", .dtype = KBV_F32, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
        {.name = "V", .dtype = KBV_F32, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SDPA, .args = {"Q", "K", "V"}, .out = "out"},
    },
    .notes = "The paper's copy draws float16 inputs on the GPU, but its harness casts every "
             "input to the run's precision (KernelBench issue #151), so the paper ran this "
             "problem on float32 inputs at allclose 1e-3; kbv does the same (inputs drawn in "
             "float32, as KernelBench v0.2's get_inputs(), where the paper's were float16 "
             "values cast to float32). No mask, no dropout, scale 1/sqrt(1024). The head dim "
             "1024 is beyond flash attention's limit.",
};
