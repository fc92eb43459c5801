/* torch.einsum with any number of operands (KBV_OP_EINSUM_N), contracted as
 * PyTorch's aten einsum does it without a precomputed path: the result's
 * labels first (in the equation's order), then the contracted labels in
 * label order (A-Z, a-z); every operand viewed in that "aligned" dim order
 * (size 1 where it lacks a label); then operands 0 and 1 contracted, the
 * result with operand 2, and so on (PyTorch's left-to-right order: the
 * path opt_einsum would give is taken only when the opt_einsum package is
 * installed, which neither KernelBench's nor the paper's requirements
 * list). Each pairwise step sums out the contracted dims that no later
 * operand has (a dim in one operand only first, by a keepdim sum), then
 * multiplies elementwise when nothing is left to contract, else runs
 * sumproduct_pair: both operands permuted to [batch, rows, contracted] and
 * [batch, contracted, cols], reshaped to 3-D (a copy where the strides
 * allow no view, as reshape), one bmm. The steps, and so the temporaries
 * and the peak, are PyTorch's. */
#ifndef KBV_OPS_EINSUM_H
#define KBV_OPS_EINSUM_H

#include <stdint.h>

#include "graph/graph.h"

#define KBV_EINSUM_MAX_OPS 8

typedef struct kbv_einsum_eq {
    int n_ops;
    int n_out;                      /* the result's dims: aligned dims 0 .. n_out - 1 */
    int n_dims;                     /* aligned dims: the result's, then the contracted */
    char label[KBV_MAX_DIMS];       /* aligned dim d's label */
    /* operand k's dim for aligned dim d, -1 where it lacks the label */
    int op_dim[KBV_EINSUM_MAX_OPS][KBV_MAX_DIMS];
} kbv_einsum_eq;

/* Parses eq for n_ops operands of ndim[k] dims: explicit "->" or implicit
 * output (the labels seen once, in label order). Ellipses, repeated labels
 * within an operand and more than KBV_MAX_DIMS labels are refused as
 * unsupported. */
kbv_status kbv_einsum_parse(const char *eq, int n_ops, const int *ndim, kbv_einsum_eq *out);

/* One pairwise step's dims, as bitmasks over aligned dims. */
typedef struct kbv_einsum_pair {
    unsigned sum;       /* contracted by the bmm (in both, in no later operand) */
    unsigned a_sum;     /* summed out of a first (in a only, in no later operand) */
    unsigned b_sum;     /* summed out of b first */
} kbv_einsum_pair;

/* The step contracting a and b (aligned shapes, n_dims sizes), counts[d]
 * the operands left with a size other than 1 in dim d (updated, as aten's
 * dim_counts). */
void kbv_einsum_pair_dims(const kbv_einsum_eq *eq, int *counts, const int64_t *a,
                          const int64_t *b, kbv_einsum_pair *p);

/* Operand k's aligned shape. */
void kbv_einsum_aligned_shape(const kbv_einsum_eq *eq, int k, int ndim, const int64_t *shape,
                              int64_t *aligned);

kbv_status kbv_shape_einsum_n(const kbv_node_def *n, const kbv_value *const *args,
                              kbv_value *out);
double kbv_flops_einsum_n(const kbv_graph *g, const kbv_node *n);

#endif
