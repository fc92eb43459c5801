/* Shape rules and FLOP counts that live beside their op family, outside
 * ops.c (which holds the table and the rules of the other families):
 * views (ops_views.c), reductions over several dims (ops_reduce.c) and
 * adaptive pooling (ops_adaptive_pool.c). The table's rows point here. */
#ifndef KBV_OPS_RULES_H
#define KBV_OPS_RULES_H

#include <stddef.h>

#include "graph/graph.h"

/* "A[33,47]" for messages. */
const char *kbv_value_describe(const kbv_value *v, char *buf, size_t cap);

/* unsqueeze, squeeze, squeeze_all, flatten; dropout and clone (a's shape). */
kbv_status kbv_shape_unsqueeze(const kbv_node_def *n, const kbv_value *const *args,
                               kbv_value *out);
kbv_status kbv_shape_squeeze(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out);
kbv_status kbv_shape_flatten(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out);
kbv_status kbv_shape_identity(const kbv_node_def *n, const kbv_value *const *args,
                              kbv_value *out);
/* view: the target shape s; dim names resolve against g's dims (g NULL:
 * integer literals only). */
kbv_status kbv_shape_view(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
kbv_status kbv_shape_view_in(const kbv_graph *g, const kbv_node_def *n,
                             const kbv_value *const *args, kbv_value *out);

/* The general views: transpose_dims, permute, narrow, expand (shape_in:
 * sizes may name dims), reshape (view's rule), and split and chunk, whose
 * rule fills one value per output of the node. */
kbv_status kbv_shape_transpose_dims(const kbv_node_def *n, const kbv_value *const *args,
                                    kbv_value *out);
kbv_status kbv_shape_permute(const kbv_node_def *n, const kbv_value *const *args,
                             kbv_value *out);
kbv_status kbv_shape_narrow(const kbv_node_def *n, const kbv_value *const *args,
                            kbv_value *out);
kbv_status kbv_shape_expand(const kbv_node_def *n, const kbv_value *const *args,
                            kbv_value *out);
kbv_status kbv_shape_expand_in(const kbv_graph *g, const kbv_node_def *n,
                               const kbv_value *const *args, kbv_value *out);
kbv_status kbv_shape_split(const kbv_node_def *n, const kbv_value *const *args,
                           kbv_value *out);
/* unfold: a.unfold(dim, size, step) (ops.h), a view. */
kbv_status kbv_shape_unfold(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
/* The permutation a permute node's s gives, checked against rank ndim:
 * perm[d] is the operand dim that result dim d walks. */
kbv_status kbv_permute_dims(const kbv_node_def *n, int ndim, int *perm);
/* dim wrapped against rank ndim (PyTorch's maybe_wrap_dim); -1 if out of range. */
int kbv_wrap_dim(int64_t dim, int ndim);
/* Piece j of a split or chunk node along its (wrapped) dim of size `size`:
 * its start and length. */
void kbv_split_piece(const kbv_node_def *n, int64_t size, int j, int64_t *start,
                     int64_t *length);

/* a[s] (ops_slice.c): per dim of a (ndim dims, shape), the start, step and
 * length s selects; a stop that names a dim resolves against g's dims (g
 * NULL: its dim's length is -1, the start and step still hold). */
kbv_status kbv_slice_dims(const kbv_graph *g, const char *s, int ndim, const int64_t *shape,
                          int64_t *start, int64_t *step, int64_t *length);
kbv_status kbv_shape_slice(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
kbv_status kbv_shape_slice_in(const kbv_graph *g, const kbv_node_def *n,
                              const kbv_value *const *args, kbv_value *out);

/* sum_dims, mean_dims, amax_dims (i[0] a bitmask of dims) and logsumexp
 * (one dim i[0]); keepdim i[1]. */
kbv_status kbv_shape_reduce_dims(const kbv_node_def *n, const kbv_value *const *args,
                                 kbv_value *out);
/* The dims a reduction node reduces, as a bitmask resolved against a's rank. */
kbv_status kbv_reduce_dims_mask(const kbv_node_def *n, int ndim, unsigned *mask);
double kbv_flops_logsumexp(const kbv_graph *g, const kbv_node *n);

/* adaptive_avg_pool{1,2,3}d: s = "output_size=..." */
#define KBV_ADAPTIVE_MAX_SPATIAL 3
typedef struct kbv_adaptive {
    int spatial;                                  /* 1, 2 or 3 */
    int64_t out[KBV_ADAPTIVE_MAX_SPATIAL];        /* 0: None, the input's size */
} kbv_adaptive;
/* Parses s for op (an integer, or a tuple of `spatial` integers or None). */
kbv_status kbv_adaptive_parse(kbv_op op, const char *s, kbv_adaptive *a);
/* PyTorch's window of output index i along a dim of `in` -> `out`:
 * [floor(i * in / out), ceil((i + 1) * in / out)). */
static inline int64_t kbv_adaptive_start(int64_t i, int64_t in, int64_t out)
{
    return (i * in) / out;
}
static inline int64_t kbv_adaptive_end(int64_t i, int64_t in, int64_t out)
{
    return ((i + 1) * in + out - 1) / out;
}
kbv_status kbv_shape_adaptive_pool(const kbv_node_def *n, const kbv_value *const *args,
                                   kbv_value *out);
double kbv_flops_adaptive_pool(const kbv_graph *g, const kbv_node *n);

#endif
