/* The runners an evaluator keeps started ahead (eval/ahead.h). */
#include "eval/ahead.h"

#include <string.h>

#include "core/status.h"
#include "eval/child.h"

struct kbv_child *kbv_ahead_take(kbv_ahead_pool *p, bool python)
{
    int k = python ? 1 : 0;
    if (p->n[k] == 0)
        return NULL;
    struct kbv_child *oldest = p->runner[k][0];
    p->n[k]--;
    memmove(&p->runner[k][0], &p->runner[k][1], (size_t)p->n[k] * sizeof p->runner[k][0]);
    p->runner[k][p->n[k]] = NULL;
    return oldest;
}

void kbv_ahead_fill(kbv_ahead_pool *p, const char *runner, int device, bool python, int depth)
{
    int k = python ? 1 : 0;
    if (depth > KBV_AHEAD_MAX)
        depth = KBV_AHEAD_MAX;
    while (p->n[k] < depth) {
        struct kbv_child *c = NULL;
        if (kbv_child_start_ahead(runner, device, python, &c) != KBV_OK) {
            kbv_clear_error();   /* the sample starts its own instead */
            return;
        }
        p->runner[k][p->n[k]++] = c;
    }
}

int kbv_ahead_default_depth(bool python)
{
    return python ? KBV_AHEAD_DEPTH_PYTHON : KBV_AHEAD_DEPTH_ABI;
}

void kbv_ahead_stop(kbv_ahead_pool *p)
{
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < p->n[k]; i++)
            kbv_child_stop(p->runner[k][i]);
        p->n[k] = 0;
    }
}
