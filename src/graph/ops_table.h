/* Per-op metadata (one row per kbv_op, in ops.c). */
#ifndef KBV_OPS_TABLE_H
#define KBV_OPS_TABLE_H

#include <stdbool.h>

#include "graph/graph.h"

/* How an op's result depends on the precision mode where a backend has
 * tensor-core math (DESIGN section 3): the rows of the modes table. */
typedef enum kbv_tf32_use {
    KBV_TF32_NONE = 0,      /* every float32 mode runs the same code */
    KBV_TF32_MATMUL,        /* cuBLAS: TF32 in the tf32 mode only */
    KBV_TF32_CONV,          /* cuDNN: TF32 allowed except in fp32-strict */
} kbv_tf32_use;

typedef struct kbv_op_info {
    const char *name;            /* "matmul" */
    int n_args;                  /* operands; -1: any number from min_args on (cat) */
    bool is_view;                /* output aliases args[0] (no allocation) */
    /* PyTorch rendering: {0} {1} operands, {*} every operand and {*3} those from
     * index 3 on (comma-separated), {f0} {i0} attributes, {b0} an integer
     * attribute as a Python bool (True/False), {s} string. */
    const char *torch;
    /* Shape rule: fills out's dtype, ndim, shape from the operands. */
    kbv_status (*shape)(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
    /* Floating-point operations of one execution. */
    double (*flops)(const kbv_graph *g, const kbv_node *n);
    kbv_tf32_use tf32;
    /* Fewest operands (0: exactly n_args); the ones after it are optional and
     * an absent one renders as None (F.linear without a bias). */
    int min_args;
    /* Shape rule for ops whose attributes name the problem's dims (a view's
     * target shape); graph.c calls it instead of `shape`, which then resolves
     * literal shapes only. */
    kbv_status (*shape_in)(const kbv_graph *g, const kbv_node_def *n,
                           const kbv_value *const *args, kbv_value *out);
    /* The in-place form's rendering (torch.relu_({0})), for nodes with
     * in_place set; NULL: the op has none. Backends run such a node with out
     * aliasing args[0], so the op must read each element before writing it. */
    const char *torch_inplace;
    /* Views only: the result is a view where the operand's strides allow
     * one and a contiguous copy otherwise, as PyTorch's reshape and
     * contiguous (the executor decides, exec/view.h). */
    bool copy_unless_view;
    /* The op's PyTorch kernels make strided operands contiguous first
     * (convolution, pooling, normalisation, softmax): the executor hands
     * the backend contiguous copies of strided operands, each alive for
     * the op alone, so that memory peaks where PyTorch's does. */
    bool contiguous_operands;
    /* Several outputs (split, chunk): the node names them in outs, and the
     * shape rule fills one value per output (out[0 .. n_outs - 1]). */
    bool several_outputs;
} kbv_op_info;

extern const kbv_op_info kbv_op_table[KBV_OP_COUNT];

#endif
