/* A problem definition resolved at one size: every value's shape and dtype,
 * nodes with integer operand indices, last uses for freeing, and the
 * counts (FLOPs, minimum bytes) derived from it. Plain data, no allocation. */
#ifndef KBV_GRAPH_H
#define KBV_GRAPH_H

#include <stdbool.h>

#include "core/status.h"
#include "core/tensor.h"
#include "graph/problem_def.h"

#define KBV_GRAPH_MAX_VALUES (KBV_DEF_MAX_INPUTS + KBV_DEF_MAX_PARAMS + KBV_DEF_MAX_NODES)

typedef enum kbv_size { KBV_SIZE_FULL = 0, KBV_SIZE_SMALL = 1 } kbv_size;

typedef enum kbv_value_kind { KBV_VALUE_INPUT, KBV_VALUE_PARAM, KBV_VALUE_NODE } kbv_value_kind;

typedef struct kbv_value {
    const char *name;
    kbv_value_kind kind;
    int def_index;               /* into def->inputs / def->params / def->nodes */
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
    int args[KBV_DEF_MAX_ARGS];  /* value indices */
    int out;                     /* value index */
    const kbv_node_def *def;     /* attributes */
} kbv_node;

typedef struct kbv_graph {
    const kbv_problem_def *def;
    int n_dims;
    int64_t dims[KBV_DEF_MAX_DIMS];           /* resolved sizes, in def->dims order */
    int n_values;
    kbv_value values[KBV_GRAPH_MAX_VALUES];   /* inputs, then params, then node outputs */
    int n_inputs, n_params, n_nodes, n_outputs;
    kbv_node nodes[KBV_DEF_MAX_NODES];
    int outputs[KBV_DEF_MAX_OUTPUTS];         /* value indices */
} kbv_graph;

/* Resolves def at the catalog's (full) or CI (small) size. */
kbv_status kbv_graph_build(const kbv_problem_def *def, kbv_size size, kbv_graph *g);
/* Same with explicit dim sizes (def->dims order); for hidden shapes. */
kbv_status kbv_graph_build_dims(const kbv_problem_def *def, const int64_t *dims, kbv_graph *g);

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
