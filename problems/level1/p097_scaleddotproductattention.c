/* L1/97 97_ScaledDotProductAttention: out = F.scaled_dot_product_attention(Q, K, V), float16. */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_097 = {
    .level = 1,
    .id = 97,
    .name = "97_ScaledDotProductAttention",
    .dims = {{"batch_size", 32, 2}, {"num_heads", 32, 3}, {"sequence_length", 512, 9}, {"embedding_dimension", 1024, 15}},
    .inputs = {
        {.name = "Q", .dtype = KBV_F16, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
        {.name = "K", .dtype = KBV_F16, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
        {.name = "V", .dtype = KBV_F16, .shape = {"batch_size", "num_heads", "sequence_length", "embedding_dimension"}, .gen = KBV_GEN_RAND},
    },
    .nodes = {
        {.op = KBV_OP_SDPA, .args = {"Q", "K", "V"}, .out = "out", .i = {1}},
    },
    .notes = "The paper's copy draws float16 inputs on the GPU (v0.2 later removed the dtype), so "
             "the output is float16 and compared at 1e-2. No mask, no dropout, scale "
             "1/sqrt(1024). The head dim 1024 is beyond flash attention's limit.",
};
