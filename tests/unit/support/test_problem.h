/* Tests write their own problems in the static format (graph/problem_def.h);
 * this converts one into the counted form the graph reads. */
#ifndef KBV_TEST_PROBLEM_H
#define KBV_TEST_PROBLEM_H

#include "graph/problem_def.h"

/* def in the counted form. The room is one of a few reused in turn: a
 * result stays valid until KBV_TEST_PROBLEM_ROOMS later calls, and while
 * def lives unchanged. */
#define KBV_TEST_PROBLEM_ROOMS 8
const kbv_problem *kbv_test_problem(const kbv_problem_def *def);

#endif
