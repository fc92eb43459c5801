/* Tests write their own problems in the static format (graph/problem_def.h);
 * this converts one into the counted form the graph reads. And a catalog
 * problem's graph at CI size, for tests that ask questions of real graphs. */
#ifndef KBV_TEST_PROBLEM_H
#define KBV_TEST_PROBLEM_H

#include "graph/graph.h"
#include "graph/problem_def.h"

/* def in the counted form. The room is one of a few reused in turn: a
 * result stays valid until KBV_TEST_PROBLEM_ROOMS later calls, and while
 * def lives unchanged. */
#define KBV_TEST_PROBLEM_ROOMS 8
const kbv_problem *kbv_test_problem(const kbv_problem_def *def);

/* The catalog's problem `key` (L1/19, ...) built at the small size, asserted
 * to exist and build; valid until the next call (one graph, rebuilt). */
const kbv_graph *kbv_test_catalog_graph(const char *key);

#endif
