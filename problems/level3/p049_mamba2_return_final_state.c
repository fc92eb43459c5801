/* L3/49 49_Mamba2ReturnFinalState: Mamba-2's chunked SSD up to the
 * inter-chunk recurrence, its last chunk's state. */
#include "level3.h"

#include "mamba_blocks.h"

kbv_status kbv_l3_049(kbv_builder *b)
{
    kbv_b_problem(b, 3, 49, "49_Mamba2ReturnFinalState",
                  "As L3/48 up to new_states = einsum('bhzc,bchpn->bzhpn', decay_chunk, "
                  "states), returning new_states[:, -1]. The module's forward also computes "
                  "L = exp(segsum(A_blocks)) and Y_diag, which nothing reads: the graph "
                  "leaves that dead work out (C is a param the forward never reads), as it "
                  "leaves out other modules' dead values.");
    l3_mamba2(b, 2048, 128, 64, true);
    return kbv_b_status(b);
}
