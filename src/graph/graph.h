/* A problem resolved at one size: every value's shape and dtype, nodes with
 * integer operand indices, last uses for freeing, and the counts (FLOPs,
 * minimum bytes) derived from it. Counted arrays, allocated by
 * kbv_graph_build to the problem's size and freed by kbv_graph_free. */
#ifndef KBV_GRAPH_H
#define KBV_GRAPH_H

#include <stdbool.h>

#include "core/status.h"
#include "core/tensor.h"
#include "graph/problem.h"

typedef enum kbv_size { KBV_SIZE_FULL = 0, KBV_SIZE_SMALL = 1 } kbv_size;

typedef enum kbv_value_kind { KBV_VALUE_INPUT, KBV_VALUE_PARAM, KBV_VALUE_NODE } kbv_value_kind;

typedef struct kbv_value {
    const char *name;
    kbv_value_kind kind;
    int def_index;               /* into def->inputs / def->params / def->nodes */
    int out_index;               /* a node's output: which of its outputs (0 for most ops) */
    kbv_dtype dtype;             /* logical dtype: float values are KBV_F32 here */
    int ndim;
    int64_t shape[KBV_MAX_DIMS];
    int last_use;                /* index of the last node reading it; -1 if none */
    bool is_output;
    /* params under KBV_INIT_UNIFORM_FAN_IN: PyTorch's fan_in of the shape at
     * this size (kbv_param_fan_in); 0 otherwise */
    int64_t fan_in;
} kbv_value;

typedef struct kbv_node {
    kbv_op op;
    int n_args;
    int *args;                   /* n_args value indices */
    int out;                     /* value index of the (first) output */
    int n_outs;                  /* its values are out .. out + n_outs - 1 (split: several) */
    const kbv_node_def *def;     /* attributes */
} kbv_node;

typedef struct kbv_graph {
    const kbv_problem *def;
    int n_dims;
    int64_t *dims;              /* n_dims resolved sizes, in def->dims order */
    int n_values;
    kbv_value *values;          /* inputs, then params, then node outputs */
    int n_inputs, n_params, n_nodes, n_outputs;
    kbv_node *nodes;            /* n_nodes */
    int *outputs;               /* n_outputs value indices */
    int *arg_pool;              /* every node's args, one block */
} kbv_graph;

/* Resolves def at the catalog's (full) or CI (small) size. g is zeroed or a
 * graph built before: its storage is freed first. On failure g is left
 * empty (freed). */
kbv_status kbv_graph_build(const kbv_problem *def, kbv_size size, kbv_graph *g);
/* Same with explicit dim sizes (def->dims order); for hidden shapes. */
kbv_status kbv_graph_build_dims(const kbv_problem *def, const int64_t *dims, kbv_graph *g);
/* Frees what kbv_graph_build allocated and zeroes g; a zeroed g is fine. */
void kbv_graph_free(kbv_graph *g);
/* The largest operand count of g's nodes (the executor's scratch). */
int kbv_graph_max_args(const kbv_graph *g);

/* PyTorch's fan_in for the U(-1/sqrt(fan_in), 1/sqrt(fan_in)) initialiser of
 * param p (index into g's params, state_dict order) at g's size: a weight
 * [out, in, *k] has in * prod(k) (nn.Linear, nn.ConvNd; ConvTranspose's
 * [in, out/groups, *k] takes dim 1 too, as torch.nn.init does), and a 1-D
 * "X.bias" the fan_in of "X.weight". Fails with the reason when the shape
 * gives none. */
kbv_status kbv_param_fan_in(const kbv_graph *g, int p, int64_t *fan_in);

int64_t kbv_value_numel(const kbv_value *v);
/* Tensor descriptor for a value, contiguous, data NULL. */
void kbv_value_tensor(const kbv_value *v, kbv_tensor *t);

double kbv_graph_flops(const kbv_graph *g);        /* total floating-point operations */
double kbv_graph_min_bytes(const kbv_graph *g);    /* inputs + params read once, outputs written once */
/* The same with float tensors stored as float_dtype (a bf16 run: 2 bytes);
 * a Python number given to forward() keeps its own size. */
double kbv_graph_min_bytes_stored(const kbv_graph *g, kbv_dtype float_dtype);

#endif
