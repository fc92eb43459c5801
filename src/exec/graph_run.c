/* Eager execution of a graph on any backend, op by op, with PyTorch's
 * lifetimes: a node's output is allocated just before the op runs, and a
 * value is released right after the node that reads it last, as Python's
 * reference counting drops an eager temporary. Views (transpose, permute,
 * narrow, split's pieces, ...) share their base's memory, a reshape or
 * contiguous that PyTorch would copy is a copy, and the result of an
 * in-place node (ReLU(inplace=True), +=) shares the operand it overwrote;
 * a block is released only when its owner and every value sharing it are
 * dead. Ops that want contiguous operands (ops_table.h) get copies of
 * strided ones for their own duration, as PyTorch's kernels make them. Inputs, params and outputs
 * are never released here. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "exec/view.h"
#include "graph/ops_table.h"

/* Bookkeeping per value (arrays of g->n_values); "block" is memory this
 * run allocated. */
typedef struct run_state {
    kbv_tensor *val;
    bool *ready;
    int *owner;          /* value whose block holds this one; -1: caller's */
    void **block;        /* by owner: live allocation, NULL once released */
    size_t *block_bytes; /* by owner: its size */
    int *block_last;     /* by owner: last node reading the block or a view */
    bool *block_pinned;  /* by owner: an output lives in it */
    kbv_tensor *args;    /* the operands of the node running: room for max_args */
    void **scratch;      /* contiguous copies of its strided operands, or NULL */
    int max_args;
} run_state;

static void state_free(run_state *s)
{
    if (!s)
        return;
    free(s->val);
    free(s->ready);
    free(s->owner);
    free(s->block);
    free(s->block_bytes);
    free(s->block_last);
    free(s->block_pinned);
    free(s->args);
    free(s->scratch);
    free(s);
}

static run_state *state_alloc(const kbv_graph *g)
{
    size_t n = (size_t)g->n_values + 1;
    run_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->val = calloc(n, sizeof *s->val);
    s->ready = calloc(n, sizeof *s->ready);
    s->owner = calloc(n, sizeof *s->owner);
    s->block = calloc(n, sizeof *s->block);
    s->block_bytes = calloc(n, sizeof *s->block_bytes);
    s->block_last = calloc(n, sizeof *s->block_last);
    s->block_pinned = calloc(n, sizeof *s->block_pinned);
    s->max_args = kbv_graph_max_args(g);
    s->args = calloc((size_t)s->max_args + 1, sizeof *s->args);
    s->scratch = calloc((size_t)s->max_args + 1, sizeof *s->scratch);
    if (!s->val || !s->ready || !s->owner || !s->block || !s->block_bytes || !s->block_last ||
        !s->block_pinned || !s->args || !s->scratch) {
        state_free(s);
        return NULL;
    }
    return s;
}

/* Releases v's block if nothing alive after node k still needs it. */
static void release_if_dead(run_state *s, kbv_backend *be, int v, int k)
{
    int w = s->owner[v];
    if (w < 0 || !s->block[w] || s->block_pinned[w] || s->block_last[w] > k)
        return;
    be->release(be, s->block[w]);
    s->block[w] = NULL;
}

/* Copies each strided operand of node into a contiguous scratch block
 * (PyTorch's .contiguous() inside the op), through the backend's clone;
 * s->args then reads the copies. */
static kbv_status make_contiguous(run_state *s, kbv_backend *be, const kbv_node *node)
{
    for (int a = 0; a < node->n_args; a++) {
        kbv_tensor *arg = &s->args[a];
        if (kbv_tensor_is_contiguous(arg))
            continue;
        kbv_tensor copy = *arg;
        int64_t stride = 1;
        for (int d = arg->ndim - 1; d >= 0; d--) {
            copy.stride[d] = stride;
            stride *= arg->shape[d];
        }
        KBV_TRY(be->alloc(be, kbv_tensor_bytes(&copy), &s->scratch[a]));
        copy.data = s->scratch[a];
        kbv_node clone_node = *node;
        clone_node.op = KBV_OP_CLONE;
        kbv_op_fn clone = be->ops[KBV_OP_CLONE];
        kbv_status st = clone ? clone(be, &clone_node, arg, &copy)
                              : kbv_fail(KBV_ERR_UNSUPPORTED, "%s has no clone", be->name);
        if (st != KBV_OK)
            return kbv_relay_at(__FILE__, __LINE__, st);
        *arg = copy;
    }
    return KBV_OK;
}

static void release_scratch(run_state *s, kbv_backend *be, int n_args)
{
    for (int a = 0; a < n_args; a++)
        if (s->scratch[a]) {
            be->release(be, s->scratch[a]);
            s->scratch[a] = NULL;
        }
}

/* Output j as its own contiguous block: handed over when the value owns
 * its block or walks the whole of it in order (an in-place result, a view
 * such as the last view of a channel shuffle), as PyTorch returns that
 * tensor itself; otherwise (a strided or partial view, an input or param,
 * a block handed over already) copied into a new one. */
static kbv_status take_output(run_state *s, kbv_backend *be, const kbv_graph *g, int j,
                              kbv_tensor *out)
{
    int o = g->outputs[j];
    if (o < 0 || o >= g->n_values || !s->ready[o])
        return kbv_fail(KBV_ERR_INTERNAL, "output %d names value %d, which was not computed", j,
                        o);
    const kbv_tensor *t = &s->val[o];
    int w = s->owner[o];
    bool whole = w >= 0 && t->data == s->block[w] && kbv_tensor_is_contiguous(t) &&
                 kbv_tensor_bytes(t) == s->block_bytes[w];
    if (w >= 0 && s->block[w] && (w == o || whole)) {
        *out = *t;
        s->block[w] = NULL; /* now the caller's */
        return KBV_OK;
    }
    size_t bytes = kbv_tensor_bytes(t);
    void *ptr = NULL;
    KBV_TRY(be->alloc(be, bytes, &ptr));
    kbv_status st = KBV_OK;
    if (kbv_tensor_is_contiguous(t)) {
        st = be->copy(be, ptr, t->data, bytes);
    } else {
        /* a strided view (a transpose, a split piece) comes out contiguous */
        kbv_tensor dense;
        kbv_value_tensor(&g->values[o], &dense);
        dense.dtype = t->dtype;
        dense.data = ptr;
        kbv_node clone_node = g->nodes[g->values[o].def_index];
        clone_node.op = KBV_OP_CLONE;
        st = be->ops[KBV_OP_CLONE] ? be->ops[KBV_OP_CLONE](be, &clone_node, t, &dense)
                                   : kbv_fail(KBV_ERR_UNSUPPORTED, "%s has no clone", be->name);
    }
    if (st != KBV_OK) {
        be->release(be, ptr);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    kbv_value_tensor(&g->values[o], out);
    out->dtype = t->dtype;
    out->data = ptr;
    return KBV_OK;
}

kbv_status kbv_graph_run(const kbv_graph *g, kbv_backend *be,
                         const kbv_tensor *inputs, const kbv_tensor *params,
                         kbv_tensor *outputs)
{
    kbv_status st = KBV_OK;
    int n_taken = 0;
    run_state *s = NULL;
    /* kbv_graph_build made g: one that does not hold together is kbv's bug */
    if (g->n_outputs < 0)
        return kbv_fail(KBV_ERR_INTERNAL, "graph has %d outputs", g->n_outputs);
    if (g->n_outputs > 0)
        memset(outputs, 0, sizeof *outputs * (size_t)g->n_outputs);
    if (g->n_values < 0 || g->n_nodes < 0 || g->n_nodes > g->n_values)
        return kbv_fail(KBV_ERR_INTERNAL, "graph has %d values and %d nodes", g->n_values,
                        g->n_nodes);
    s = state_alloc(g);
    if (!s)
        return kbv_fail(KBV_ERR_NOMEM, "graph run bookkeeping");

    for (int v = 0; v < g->n_values; v++) {
        const kbv_value *val = &g->values[v];
        s->owner[v] = -1;
        if (val->kind == KBV_VALUE_INPUT) {
            if (val->def_index < 0 || val->def_index >= g->n_inputs)
                KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "input '%s' has index %d of %d",
                              val->name, val->def_index, g->n_inputs);
            s->val[v] = inputs[val->def_index];
            s->ready[v] = true;
        } else if (val->kind == KBV_VALUE_PARAM) {
            if (val->def_index < 0 || val->def_index >= g->n_params)
                KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "param '%s' has index %d of %d",
                              val->name, val->def_index, g->n_params);
            s->val[v] = params[val->def_index];
            s->ready[v] = true;
        }
    }

    for (int k = 0; k < g->n_nodes; k++) {
        const kbv_node *node = &g->nodes[k];
        if (node->op <= KBV_OP_NONE || node->op >= KBV_OP_COUNT)
            KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "node %d has op %d", k, (int)node->op);
        const kbv_op_info *info = &kbv_op_table[node->op];
        kbv_op_fn fn = be->ops[node->op];
        if (!fn)
            KBV_FAIL_GOTO(st, cleanup, KBV_ERR_UNSUPPORTED, "op '%s' is not implemented on %s",
                          info->name, be->name);
        if (node->n_args < 0 || node->n_args > s->max_args)
            KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "node %d (%s) has %d operands", k,
                          info->name, node->n_args);
        kbv_tensor *args = s->args;
        for (int a = 0; a < node->n_args; a++) {
            int v = node->args[a];
            if (v < 0 || v >= g->n_values || !s->ready[v])
                KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL,
                              "node %d (%s) reads value %d before it exists", k, info->name, v);
            args[a] = s->val[v];
        }
        int o = node->out;
        if (o < 0 || o >= g->n_values || s->ready[o])
            KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "node %d (%s) writes value %d twice or "
                          "out of range", k, info->name, o);
        const kbv_value *ov = &g->values[o];
        kbv_tensor *t = &s->val[o];
        int n_outs = node->n_outs > 0 ? node->n_outs : 1;
        if (o + n_outs > g->n_values)
            KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "node %d (%s) has %d outputs from "
                          "value %d of %d", k, info->name, n_outs, o, g->n_values);
        for (int j = 0; j < n_outs; j++) {
            kbv_value_tensor(&g->values[o + j], &t[j]);
            if (kbv_dtype_is_float(g->values[o + j].dtype))
                t[j].dtype = be->float_dtype;
        }

        bool in_place = node->def && node->def->in_place;
        bool copies = info->is_view && kbv_view_needs_copy(node, args, t);
        if ((info->is_view && !copies) || in_place) {
            if (node->n_args < 1)
                KBV_FAIL_GOTO(st, cleanup, KBV_ERR_INTERNAL, "view node %d (%s) has no operand",
                              k, info->name);
            /* a view sets its own data; an in-place op writes over args[0],
             * in its layout */
            t->data = in_place ? args[0].data : NULL;
            if (in_place)
                memcpy(t->stride, args[0].stride, sizeof t->stride);
            KBV_TRY_GOTO(fn(be, node, args, t), st, cleanup);
            int w = s->owner[node->args[0]];
            for (int j = 0; j < n_outs; j++) {
                const kbv_value *piece = &g->values[o + j];
                s->owner[o + j] = w;
                if (w >= 0) {
                    if (piece->last_use > s->block_last[w])
                        s->block_last[w] = piece->last_use;
                    if (piece->is_output)
                        s->block_pinned[w] = true;
                }
            }
        } else {
            /* strided operands of ops whose PyTorch kernels want contiguous
             * ones are copied first, each copy alive for this op alone */
            if (info->contiguous_operands)
                KBV_TRY_GOTO(make_contiguous(s, be, node), st, cleanup);
            void *ptr = NULL;
            KBV_TRY_GOTO(be->alloc(be, kbv_tensor_bytes(t), &ptr), st, cleanup);
            t->data = ptr;
            s->owner[o] = o;
            s->block[o] = ptr;
            s->block_bytes[o] = kbv_tensor_bytes(t);
            s->block_last[o] = ov->last_use;
            s->block_pinned[o] = ov->is_output;
            st = copies ? kbv_view_copy(be, node, args, t) : fn(be, node, args, t);
            release_scratch(s, be, node->n_args);
            if (st != KBV_OK)
                goto cleanup;
        }
        for (int j = 0; j < n_outs; j++)
            s->ready[o + j] = true;

        for (int a = 0; a < node->n_args; a++)
            release_if_dead(s, be, node->args[a], k);
        for (int j = 0; j < n_outs; j++)
            release_if_dead(s, be, o + j, k);
    }

    for (; n_taken < g->n_outputs; n_taken++)
        KBV_TRY_GOTO(take_output(s, be, g, n_taken, &outputs[n_taken]), st, cleanup);

cleanup:
    if (st != KBV_OK) {
        for (int j = 0; j < n_taken; j++)
            be->release(be, outputs[j].data);
        if (g->n_outputs > 0)
            memset(outputs, 0, sizeof *outputs * (size_t)g->n_outputs);
    }
    if (s) {
        release_scratch(s, be, s->max_args);
        for (int v = 0; v < g->n_values; v++)
            if (s->block[v])
                be->release(be, s->block[v]);
        state_free(s);
    }
    return st;
}
