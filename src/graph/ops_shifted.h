/* F.pad (constant mode) and torch.roll (ops.h): copies in which every
 * element of the result comes from the operand at a coordinate shifted per
 * dim, wrapped (roll) or the pad value where it falls outside the operand.
 * Both backends read the same map (kbv_shift_map_of), so they agree on the
 * attributes' meaning. */
#ifndef KBV_OPS_SHIFTED_H
#define KBV_OPS_SHIFTED_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"

/* Result coordinate o along dim d reads operand coordinate o - offset[d]:
 * wrapped modulo the operand's size (roll), or the pad value where it falls
 * outside [0, in_shape[d]) (pad). */
typedef struct kbv_shift_map {
    int ndim;
    bool wrap;
    int64_t offset[KBV_MAX_DIMS];
    int64_t out_shape[KBV_MAX_DIMS];
} kbv_shift_map;

/* The map of node n (op pad or roll) over an operand of ndim dims, in_shape. */
kbv_status kbv_shift_map_of(const kbv_node_def *n, int ndim, const int64_t *in_shape,
                            kbv_shift_map *m);

kbv_status kbv_shape_shifted(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out);
/* index: a[b], b a 1-D int64 tensor of rows of a. */
kbv_status kbv_shape_index(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);

#endif
