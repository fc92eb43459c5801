#include "support/test_problem.h"

const kbv_problem *kbv_test_problem(const kbv_problem_def *def)
{
    static kbv_static_problem rooms[KBV_TEST_PROBLEM_ROOMS];
    static int next;
    kbv_static_problem *room = &rooms[next];
    next = (next + 1) % KBV_TEST_PROBLEM_ROOMS;
    return kbv_problem_of_def(def, room);
}
