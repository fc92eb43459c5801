#include "support/test_problem.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "graph/problem.h"

const kbv_problem *kbv_test_problem(const kbv_problem_def *def)
{
    static kbv_static_problem rooms[KBV_TEST_PROBLEM_ROOMS];
    static int next;
    kbv_static_problem *room = &rooms[next];
    next = (next + 1) % KBV_TEST_PROBLEM_ROOMS;
    return kbv_problem_of_def(def, room);
}

const kbv_graph *kbv_test_catalog_graph(const char *key)
{
    static kbv_graph graph;   /* kbv_graph_build frees the one built before */
    const kbv_problem *def = kbv_problem_find(key);
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &graph), KBV_OK);
    return &graph;
}
