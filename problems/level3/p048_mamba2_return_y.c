/* L3/48 48_Mamba2ReturnY: Mamba-2's chunked state-space duality, its output Y. */
#include "level3.h"

#include "mamba_blocks.h"

kbv_status kbv_l3_048(kbv_builder *b)
{
    kbv_b_problem(b, 3, 48, "48_Mamba2ReturnY",
                  "KernelBench's SSD forward in two chunks of block_len: rearranges into "
                  "chunks (reshape and permute views), A's cumsum, exp(segsum) (cumsum, "
                  "pairwise differences, masked_fill(~tril, -inf)), four einsums contracted "
                  "left to right as torch.einsum does without opt_einsum, zero initial "
                  "states, the inter-chunk recurrence and the states' outputs. A, B and C "
                  "are batch-sized randn params. The small size keeps two chunks (8 steps "
                  "each) and shrinks every width.");
    l3_mamba2(b, 2048, 128, 64, false);
    return kbv_b_status(b);
}
