/* The view ops (unsqueeze, squeeze, view, flatten, and dropout as the
 * identity) on every backend: the output shares the operand's memory and
 * gets strides that walk it in the new shape; nothing runs on the device.
 * One implementation, in both backends' op tables. */
#ifndef KBV_VIEW_H
#define KBV_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/backend.h"

/* Strides for viewing a tensor of shape/stride (ndim dims) as new_shape
 * (new_ndim dims, same element count), as PyTorch's computeStride finds
 * them; false when no strides do (a transposed tensor cannot be flattened
 * across its swapped dims without a copy). */
bool kbv_view_strides(int ndim, const int64_t *shape, const int64_t *stride, int new_ndim,
                      const int64_t *new_shape, int64_t *new_stride);

/* out->ndim and out->shape are the node's result (the graph's); sets
 * out->data and out->stride. */
kbv_status kbv_view_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out);

#endif
