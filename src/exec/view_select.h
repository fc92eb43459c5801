/* a.select(dim, index) on every backend (x[t], out[:, -1, :]): the output
 * is the operand's memory from the index's offset on, with the dim's stride
 * gone; nothing is copied, as in PyTorch. One implementation, in both
 * backends' op tables. */
#ifndef KBV_VIEW_SELECT_H
#define KBV_VIEW_SELECT_H

#include "exec/backend.h"

/* out->ndim and out->shape are the node's result (the graph's); sets
 * out->data and out->stride. */
kbv_status kbv_select_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);

#endif
