/* The one-op problems of the level-2 ops (op_problems.c). */
#ifndef KBV_TEST_OP_PROBLEMS_H
#define KBV_TEST_OP_PROBLEMS_H

#include "graph/problem_def.h"

extern const kbv_problem_def kbv_op_problems[];
extern const int kbv_op_problem_count;
/* Problem p in the counted form (converted on first use). */
const kbv_problem *kbv_op_problem(int p);

#endif
