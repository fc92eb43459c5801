/* The view ops (unsqueeze, squeeze, view, flatten, dropout as the
 * identity, and the general views: transpose_dims, permute, narrow,
 * expand, reshape, contiguous, split, chunk, slice) on every backend: the output shares the operand's memory and
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
 * out->data and out->stride (of each output, out[0 .. n_outs - 1], for
 * split and chunk). A reshape or contiguous that needs a copy fails here:
 * the executor asks kbv_view_needs_copy first. */
kbv_status kbv_view_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out);

/* Whether node (reshape, contiguous: copy_unless_view in the op table)
 * must copy its operand, as PyTorch's does, rather than view it. */
bool kbv_view_needs_copy(const kbv_node *node, const kbv_tensor *args, const kbv_tensor *out);
/* That copy: args[0]'s elements in order into out (allocated, contiguous),
 * through the backend's clone. */
kbv_status kbv_view_copy(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);

#endif
