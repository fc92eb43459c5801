/* The PyTorch rendering of a problem: a self-contained module in
 * KernelBench's style (Model, get_inputs, get_init_inputs) that is both the
 * prompt text and a cross-check against real PyTorch. */
#ifndef KBV_TORCH_RENDER_H
#define KBV_TORCH_RENDER_H

#include <stdio.h>

#include "core/status.h"
#include "graph/graph.h"

/* Prints the module for def with its dim constants at `size`. */
kbv_status kbv_render_torch(const kbv_problem_def *def, kbv_size size, FILE *f);

/* The init inputs of graph g (built at its size) as Python source for a
 * KernelBench-format candidate: the dim constants, then
 * "init_inputs = [...]" -- what get_init_inputs() returns, from kbv's own
 * definition. Fails when it does not fit in cap bytes. */
kbv_status kbv_render_init_inputs(const kbv_graph *g, char *buf, size_t cap);

/* One node as the PyTorch expression its op template gives, e.g.
 * "torch.softmax(x, dim=1)"; params are written as self.<name>. */
kbv_status kbv_render_node(const kbv_graph *g, int node, char *buf, size_t cap);

/* A float as Python's repr writes it: shortest round-trip digits, always
 * with a '.' or exponent ("1.0", "0.01", "1e-05"). */
void kbv_render_float(double v, char *buf, size_t cap);

#endif
