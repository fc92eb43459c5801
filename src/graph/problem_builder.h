/* Building a counted problem by code (level 3: whole models).
 *
 * A builder function calls the kbv_b_* functions below in the order the
 * problem is read: dims, inputs, params in state_dict order, init args,
 * nodes in forward() order, outputs. Every string it passes is copied, so
 * names may be formatted on the stack. The first failure is kept (the
 * problem, the file:line that found it and the reason, which names the
 * value) and every later call does nothing, so that a builder reads as the
 * model it describes, without a check per line; kbv_builder_run reports it.
 * Names and shapes are checked where the graph is built (graph.h), as a
 * static definition's are. What comes out is the same kbv_problem a
 * static definition converts to: everything downstream reads only that. */
#ifndef KBV_PROBLEM_BUILDER_H
#define KBV_PROBLEM_BUILDER_H

#include <stdbool.h>

#include "core/status.h"
#include "graph/problem.h"

typedef struct kbv_builder kbv_builder;

/* Runs build on a fresh builder; on success *out is the problem, which the
 * caller frees with kbv_built_problem_free (the registry keeps its own for
 * the life of the process). */
kbv_status kbv_builder_run(kbv_status (*build)(kbv_builder *b), const kbv_problem **out);
void kbv_built_problem_free(const kbv_problem *p);
/* The builder's status: KBV_OK, or the first failure. A builder function
 * returns it. */
kbv_status kbv_b_status(const kbv_builder *b);

void kbv_b_problem(kbv_builder *b, int level, int id, const char *name, const char *notes);
void kbv_b_dim(kbv_builder *b, const char *name, int64_t full, int64_t small);
/* A float input of generator gen; shape is comma-separated dim names or
 * literals ("batch_size,3,224,224"). */
void kbv_b_input(kbv_builder *b, const char *name, kbv_gen gen, const char *shape);
/* A float32 param (or buffer) with its initialiser; the shape as above, or
 * "" for 0-dim. fan-ins are derived by the graph from the shape. */
void kbv_b_param(kbv_builder *b, const char *name, kbv_init init, const char *shape,
                 bool is_buffer);
/* The same with a printf-formatted shape ("%d,%d,3,3"). */
void kbv_b_paramf(kbv_builder *b, const char *name, kbv_init init, bool is_buffer,
                  const char *shape_fmt, ...) __attribute__((format(printf, 5, 6)));
/* The last param's value: KBV_INIT_CONST's constant, KBV_INIT_NORMAL's std,
 * KBV_INIT_SWIN_ATTN_MASK's shift. */
void kbv_b_param_value(kbv_builder *b, double value);
/* The last param's dtype (a param is float32 unless this says otherwise). */
void kbv_b_param_dtype(kbv_builder *b, kbv_dtype dtype);
void kbv_b_init_arg(kbv_builder *b, const char *name, const char *value);

/* A node's attributes: float, integer and string slots as ops.h documents. */
typedef struct kbv_b_attrs {
    double f[4];
    int64_t i[4];
    const char *s;
    bool in_place;   /* kbv_node_def.in_place */
} kbv_b_attrs;

/* Appends a node reading n_args values and returns the name of its value:
 * `out` when given, else a fresh "tN". NULL after a failure. */
const char *kbv_b_node(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                       int n_args, const char *const *args);
/* Shorthands for one, two and three operands. */
const char *kbv_b_op1(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a);
const char *kbv_b_op2(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a, const char *c);
const char *kbv_b_op3(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a, const char *c, const char *d);
/* A node of one operand and several outputs, named outs (split, chunk). */
void kbv_b_node_outs(kbv_builder *b, kbv_op op, kbv_b_attrs attrs, const char *a, int n_outs,
                     const char *const *outs);
/* A string kept as long as the problem (for attrs.s built on the stack). */
const char *kbv_b_strf(kbv_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lists value `name` among the outputs (none listed: the last node's). */
void kbv_b_output(kbv_builder *b, const char *name);

/* Orders the params as a module registers its children: stably, by the
 * position of each param's first name component among the n `children`
 * (a model whose forward interleaves children, as DenseNet's blocks and
 * transitions, declares its params in forward order and reorders them
 * here). A param whose first component is not listed is a failure. */
void kbv_b_order_params(kbv_builder *b, int n, const char *const *children);

/* Records a failure at file:line unless one is recorded; for block helpers. */
void kbv_b_fail_at(kbv_builder *b, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define kbv_b_fail(b, ...) kbv_b_fail_at((b), __FILE__, __LINE__, __VA_ARGS__)

#endif
