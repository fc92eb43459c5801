/* Mamba-2's state-space duality (L3/48, L3/49): KernelBench's chunked SSD
 * forward, as one block over the problem's dims. */
#ifndef KBV_L3_MAMBA_BLOCKS_H
#define KBV_L3_MAMBA_BLOCKS_H

#include <stdbool.h>

#include "graph/problem_builder.h"

/* The dims (batch_size, seq_length, n_heads, d_head, d_state, block_len
 * and n_chunks = seq_length / block_len, 2 at both sizes: the last chunk is
 * dropped by a narrow, which takes an integer), the input X, the params A,
 * B, C (randn, batch-sized, as the module's), the init args, and the
 * forward up to new_states; then L3/49's result new_states[:, -1]
 * (final_state) or L3/48's Y. */
void l3_mamba2(kbv_builder *b, int64_t batch, int64_t seq, int64_t block_len, bool final_state);

#endif
