/* The runners started ahead of their candidates (eval/child.h,
 * kbv_child_start_ahead), kept by an evaluator for the samples to come.
 *
 * One kept for kbv's own ABI is enough: its start (process, sandbox, CUDA
 * context) is shorter than any sample's work. A KernelBench-format runner
 * also starts the interpreter and imports torch, about 5 s on the H200,
 * longer than a verified sample of a small problem works: several are
 * started ahead so that their imports overlap one another and the
 * evaluations. Runners of each kind are kept apart; a sample takes the
 * oldest of its own kind, and only the kind of the sample just taken is
 * topped up (a run directory holds one format as a rule), so a mixed run
 * keeps what it started of the other kind for its next sample of that kind. */
#ifndef KBV_EVAL_AHEAD_H
#define KBV_EVAL_AHEAD_H

#include <stdbool.h>

#define KBV_AHEAD_MAX 8             /* at most this many of a kind */
#define KBV_AHEAD_DEPTH_ABI 1       /* kept by default for kbv's ABI */
#define KBV_AHEAD_DEPTH_PYTHON 3    /* for the KernelBench format */

struct kbv_child;

typedef struct kbv_ahead_pool {
    struct kbv_child *runner[2][KBV_AHEAD_MAX];   /* [python], oldest first */
    int n[2];
} kbv_ahead_pool;

/* The oldest runner kept for this kind of candidate, now the caller's (it
 * goes to kbv_child_spec.ahead), or NULL when none is kept. */
struct kbv_child *kbv_ahead_take(kbv_ahead_pool *p, bool python);

/* Starts runners for this kind of candidate until `depth` (at most
 * KBV_AHEAD_MAX) are kept. A runner that cannot be started is left out: a
 * sample then starts its own, as without start-ahead. */
void kbv_ahead_fill(kbv_ahead_pool *p, const char *runner, int device, bool python, int depth);

/* The default depth of a kind. */
int kbv_ahead_default_depth(bool python);

/* Stops every runner kept. */
void kbv_ahead_stop(kbv_ahead_pool *p);

#endif
