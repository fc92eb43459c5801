/* One kbv eval run's bookkeeping, shared by its three ways of evaluating (in
 * this process, in worker processes, across MPI ranks): the plan of samples
 * to evaluate, the results file and its single writer, the compile-ahead
 * pool, the progress lines and the final report. */
#ifndef KBV_CLI_EVAL_RUN_H
#define KBV_CLI_EVAL_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/run_options.h"
#include "core/status.h"
#include "record/candidate_file.h"
#include "eval/compile_ahead.h"
#include "eval/protocol.h"
#include "eval/pace.h"
#include "eval/runset.h"
#include "eval/shard.h"
#include "graph/problem.h"
#include "record/results.h"

#define KBV_EVAL_MAX_DIRS 256

/* The command line, checked. */
typedef struct eval_config {
    const char *dirs[KBV_EVAL_MAX_DIRS];
    int n_dirs;
    const char *out;                 /* the results file (a shard's name when sharded) */
    const char *summary;
    const char *problems;            /* --problems as given, or NULL */
    kbv_problem_set selection;
    kbv_run_options ro;
    kbv_shard shard;
    const char *gpus;                /* --gpus as given, or NULL */
    int workers;                     /* --workers, 0 when not given */
    int compile_jobs;                /* --compile-jobs (0: no compile-ahead) */
    unsigned protocols;              /* --protocols (bit p: protocol p), 0 when not given: all */
    kbv_gate gate;                   /* --gate */
    unsigned vendor_libs;            /* --allow-vendor-libs (core/vendor_libs.h), 0: none */
    bool mpi;
    kbv_start_ahead start_ahead;     /* --start-ahead */
    int start_ahead_depth;           /* --start-ahead N (0: each kind's default) */
} eval_config;

/* A sample to evaluate: its job in the run set and its problem. */
typedef struct eval_planned {
    int job;
    const kbv_problem *def;
    bool unusable;                   /* its file failed the read when planned (nothing to
                                        compile ahead; the evaluation records why) */
} eval_planned;

/* The accounting: every candidate (a file of the run's device or a
 * .failed.json, of a selected problem that this kbv has) is in exactly one
 * count. When planned: candidates = n_plan + resumed + in_other_shards +
 * failed; at the end: candidates = evaluated + failed + resumed +
 * in_other_shards + not reached (a run that stopped early). */
typedef struct eval_run {
    kbv_runset rs;
    eval_planned *plan;
    int n_plan;
    kbv_results res;
    bool res_open;
    const char *device_name;         /* what records say (resume compares it) */
    const char *size_name;
    kbv_gate gate;                   /* the verified gate (resume compares it too) */
    kbv_precision precision;         /* fp32 or bf16 (resume compares it too) */
    unsigned vendor_libs;            /* the vendor libraries allowed (resume compares them too) */
    kbv_cand_kind want;              /* the run's candidates: .c (CPU) or .cu (GPU) */
    int candidates;                  /* in every shard */
    int evaluated;                   /* recorded by this run */
    int resumed;                     /* recorded before, with this identity */
    int failed;                      /* could not be evaluated (kbv's own trouble): not recorded */
    int in_other_shards;
    int unusable[KBV_CANDIDATE_DEFECT_COUNT];  /* of the evaluated: unusable files, by defect */
    int not_selected;                /* candidates of problems --problems leaves out */
    int unknown_problem;             /* named for problems this kbv does not have */
    kbv_compile_ahead pool;
    const char **sources;            /* the pool's: each planned job's source */
    kbv_pace pace;                   /* this run's device time and where the wall time went */
    char protocols[40];              /* the protocols evaluated, for the pace: "all", ... */
} eval_run;

/* An empty run (nothing open, no pool). */
void eval_run_init(eval_run *run);

/* Scans the run directories for candidates of kind want, opens the results
 * file and plans: the selected samples of this shard not yet recorded there
 * with this device and size (a file that cannot be read is planned too, with
 * the identity record/candidate_file.h gives it). Errors are reported on
 * stderr; false then. Directories that hold entries but no candidate to
 * account for are such an error (the reason is said). */
bool eval_run_plan(eval_run *run, const eval_config *cfg, kbv_cand_kind want,
                   const char *device_name, const char *size_name);

/* "kbv eval: N candidates in D run directories: P to evaluate, R already
 * recorded[, S in other shards]; O other entries not evaluated (...)" and
 * "kbv eval: device D, size S[EXTRA]". */
void eval_run_announce(const eval_run *run, const eval_config *cfg, const char *extra);

/* The end's accounting: "kbv eval: N candidates: E evaluated (U unusable
 * files: ...), F could not be evaluated, R resumed[, S in other shards][,
 * L not reached]". */
void eval_run_account(const eval_run *run);

/* Starts compiling the planned candidates ahead (cfg->compile_jobs builders;
 * arch as the evaluators compile, NULL on the CPU). Never fails the run: a
 * pool that cannot start is reported and the evaluators compile for themselves. */
void eval_run_compile_ahead(eval_run *run, const eval_config *cfg, const char *arch);

/* Plan position i is being evaluated now (tells the pool; any process). */
void eval_run_reached(const eval_run *run, int i);

/* The identity fields of position i's record (what resume compares). */
void eval_run_identity(const eval_run *run, int i, kbv_record *rec);

/* Starts the pace's clock (eval/pace.h) for the protocols cfg evaluates,
 * with n_workers evaluators on devices[] (devices NULL: all on device;
 * n_workers 0: one in this process, on device). */
kbv_status eval_run_pace_start(eval_run *run, const eval_config *cfg, int n_workers,
                               const int *devices, int device);

/* Appends position i's finished record, evaluated on device (a CUDA
 * ordinal, -1 the CPU, KBV_PACE_ANY_DEVICE), counts it in the pace and
 * prints its progress line. An error means nothing more can be recorded. */
kbv_status eval_run_done(eval_run *run, int i, int device, const kbv_record *rec,
                         double seconds);

/* As eval_run_done, for a record evaluated elsewhere (a worker, a rank):
 * one that is not position i's sample on this device and size is refused
 * as a failure of that job. */
kbv_status eval_run_received(eval_run *run, int i, int device, const kbv_record *rec,
                             double seconds);

/* Position i could not be evaluated, and why (it is not recorded). */
void eval_run_failed(eval_run *run, int i, const char *why);

/* Position i's candidate file. */
const char *eval_run_path(const eval_run *run, int i);

/* Stops the pool (reporting what it did) and the pace's clock, prints the
 * accounting, the metrics table and the pace, writes the summary (the pace
 * in it as "pace" when this run evaluated something). The exit status: 0, or 1 when something could
 * not be evaluated or reported. */
int eval_run_finish(eval_run *run, const eval_config *cfg);

/* Stops the pool if it still runs and frees everything. */
void eval_run_free(eval_run *run);

/* The --mpi run (eval_mpi.c): rank 0 coordinates, the others evaluate. */
int eval_mpi(const eval_config *cfg);

/* "kbv eval: WHAT: <the error>" on stderr (kbv_cli_error), and clears the error. */
void eval_print_error(const char *what);

#endif
