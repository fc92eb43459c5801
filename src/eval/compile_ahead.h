/* Compile-ahead: while evaluators work through a run's jobs, a pool of
 * builders compiles the candidates of the jobs still ahead into the compile
 * cache (compile.h), so that an evaluator normally finds its candidate built
 * instead of leaving its GPU idle during nvcc.
 *
 * The pool is one process, forked once the jobs are planned and before any
 * evaluator exists (so before CUDA); it forks one short-lived builder per
 * candidate, at most `parallel` at a time, in job order. Builders call
 * kbv_compile with exactly the options an evaluator uses, so what they build
 * is what the evaluator finds under the same key, compile errors included;
 * what they cannot settle (a compiler timeout, a refused flags line, an
 * error of their own) is not cached and the evaluator does it as before.
 * An evaluator that reaches a job whose build is under way waits for it
 * through the cache's per-entry lock rather than compiling it a second time.
 *
 * Evaluators say which job they have reached (kbv_compile_ahead_reached, from
 * any process forked after the pool was started); the pool passes over jobs
 * already reached. Builders run at the lowest CPU priority (nice 19), so the
 * processes being timed keep theirs.
 *
 * The pool never holds up or fails a run: a pool that cannot start or that
 * dies only means the evaluators compile for themselves. It dies with the
 * process that started it (PR_SET_PDEATHSIG), and its builders with it; a
 * builder that is stopped kills its compiler's process group and removes its
 * temporary directory, so a killed run leaves no compiler of the pool's. */
#ifndef KBV_COMPILE_AHEAD_H
#define KBV_COMPILE_AHEAD_H

#include <sys/types.h>

#include "core/status.h"

typedef struct kbv_compile_ahead_opts {
    const char *const *sources;   /* per job, in evaluation order; NULL: nothing to build */
    int n;                        /* jobs */
    int parallel;                 /* builders at a time, >= 1 */
    const char *arch;             /* the GPU architecture evaluators compile for; NULL on the CPU */
    unsigned vendor_libs;         /* the vendor libraries evaluators link (kbv_compile_opts) */
} kbv_compile_ahead_opts;

typedef struct kbv_compile_ahead_stats {
    int built;        /* compiled by the pool, into the cache */
    int failed;       /* did not compile (cached as a compile error unless the compiler timed out) */
    int cached;       /* already in the cache when the pool came to them */
    int passed;       /* reached by an evaluator before the pool started them */
    int left;         /* left to the evaluator: builds stopped with the pool, builder errors */
    double seconds;   /* from the pool's start to the end of its last build */
} kbv_compile_ahead_stats;

typedef struct kbv_compile_ahead {
    pid_t pid;        /* the pool process; -1: none */
    int fd;           /* the message socket; -1: none */
} kbv_compile_ahead;

/* A pool that does nothing (kbv_compile_ahead_reached and _stop are no-ops). */
#define KBV_COMPILE_AHEAD_NONE ((kbv_compile_ahead){.pid = -1, .fd = -1})

/* The CPUs this process may run on (its affinity, e.g. Slurm's
 * --cpus-per-task), else the online CPUs: --compile-jobs's default. */
int kbv_compile_ahead_default_parallel(void);

/* Forks the pool; o->sources must stay valid until kbv_compile_ahead_stop. */
kbv_status kbv_compile_ahead_start(const kbv_compile_ahead_opts *o, kbv_compile_ahead *pool);

/* Job i is being evaluated now. Never blocks; a pool that is gone is ignored. */
void kbv_compile_ahead_reached(const kbv_compile_ahead *pool, int i);

/* Stops the pool and reaps it: builds under way are stopped. stats (may be
 * NULL) gets the pool's counts, all zero when it could not report them. Only
 * the process that started the pool may stop it. */
void kbv_compile_ahead_stop(kbv_compile_ahead *pool, kbv_compile_ahead_stats *stats);

#endif
