/* torch.einsum of any number of operands on every backend (KBV_OP_EINSUM_N):
 * aten's pairwise contraction (graph/ops_einsum.h) run through the
 * backend's own ops -- sum_dims for the sums out of one operand, mul for an
 * elementwise step, clone for reshape's copies, bmm -- with each temporary
 * allocated from the backend and released where PyTorch frees it. */
#ifndef KBV_EINSUM_PAIRWISE_H
#define KBV_EINSUM_PAIRWISE_H

#include "exec/backend.h"

kbv_status kbv_einsum_pairwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out);

#endif
