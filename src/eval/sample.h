/* One sample's state while kbv_protocol_run carries the protocols out, and
 * the steps the protocol's files share: the arena and its fills
 * (sample_arena.c), the references (references.c), the judging of a call
 * (judge_call.c), the candidate process (sample_child.c), the correctness
 * and timing phases (correctness.c, timing.c), strict's audits
 * (strict_audits.c, hidden_shapes.c). Internal to src/eval. */
#ifndef KBV_EVAL_SAMPLE_H
#define KBV_EVAL_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dist/draws.h"
#include "eval/busy.h"
#include "eval/child.h"
#include "eval/phase.h"
#include "eval/precision.h"
#include "eval/protocol.h"
#include "eval/symbols.h"
#include "eval/verdict.h"
#include "exec/clock_guard.h"

#define GUARD_BYTES 4096
#define N_SETS 2

typedef struct sample {
    kbv_evaluator *ev;
    kbv_backend *svc;                                   /* device services: the fp32 backend */
    const kbv_graph *g;
    const char *key;
    kbv_draw_plan plan;
    kbv_arena arena;
    bool have_arena;
    /* Per-tensor arrays, sized by the graph in sample_new and freed by
     * sample_free: inputs [n_inputs] per set, params [n_params], outputs
     * [n_outputs], guards [n_guards_max]. */
    kbv_child_layout layout;                            /* offsets, for the runner */
    kbv_tensor *in[N_SETS];                             /* the same tensors, addressed */
    kbv_tensor *par;
    kbv_tensor *out;
    kbv_tensor *par64;                                  /* the oracle's params */
    bool *par64_owned;
    kbv_draw cur_params;                                /* the draw the params hold */
    uint64_t *in_hash[N_SETS], *par_hash;
    int n_guards, n_guards_max;
    size_t *guard_off;
    char (*guard_where)[80];
    uint64_t guard_hash;
    int perturbable;                                    /* input changed in place, -1: none */
    kbv_child *child;
    bool child_dead;                                    /* faulted: a new one is needed */
    int l2_persisting;                                  /* calls that left persisting L2 set */
    double call_returned_s;                             /* kbv_monotonic_s() as the last call returned */
    kbv_symbols syms;                                   /* the candidate's, read once */
    bool have_syms;
    double sol_ms;                                      /* NAN when unknown (CPU runs) */
    double sol_floor_ms;                                /* below-sol's bound; NAN likewise */
    kbv_phase_clock clock;                              /* where the time goes: rec->phase_s */
    kbv_busy_meter busy;                                /* the device's share: rec->busy_s */
    kbv_record *rec;                                    /* gets what the runner printed and
                                                           the device time (NULL: neither) */
    bool python;                                        /* a KernelBench-format candidate */
    kbv_child_python python_seen;                       /* its runners' reports, the most of each */
} sample;

/* A stretch of the evaluator's own device work of one kind (eval/busy.h),
 * charged to the checks; stretches nest. */
static inline void sample_busy_enter(sample *s, kbv_check_work work)
{
    kbv_busy_enter(&s->busy, s->rec, work);
}
static inline void sample_busy_leave(sample *s) { kbv_busy_leave(&s->busy, s->rec); }

/* Whether this run evaluates protocol p (kbv eval --protocols). */
static inline bool sample_wants(const sample *s, kbv_protocol p)
{
    return (s->ev->opts.protocols >> p) & 1u;
}

/* The dtype the candidate is given for a tensor of dtype `logical` in the
 * problem: its precision's for float tensors (bfloat16 in a bf16 run), but a
 * Python number given to forward() stays float32, as .to() casts tensors only. */
static inline kbv_dtype sample_dtype(const sample *s, kbv_dtype logical, bool python_scalar)
{
    kbv_dtype f = kbv_precision_get(s->ev->opts.precision)->float_dtype;
    return kbv_dtype_is_float(logical) && !python_scalar ? f : logical;
}

static inline const kbv_input_def *input_def(const sample *s, int i)
{
    return &s->g->def->inputs[s->g->values[i].def_index];
}

static inline const kbv_param_def *param_def(const sample *s, int j)
{
    return &s->g->def->params[s->g->values[s->g->n_inputs + j].def_index];
}

/* ---- the arena (sample_arena.c) ---------------------------------------- */

/* Layout: guard, then each buffer followed by a guard: input sets, params,
 * outputs; allocates the per-tensor arrays first (sample_allocate). */
kbv_status sample_make_layout(sample *s);
kbv_status sample_hash_tensor(sample *s, const kbv_tensor *t, uint64_t *h);
kbv_status sample_fill_set(sample *s, int set, const kbv_draw *d);
/* Params from draw d, their hashes and the oracle's float64 copies. */
kbv_status sample_fill_params(sample *s, const kbv_draw *d);
/* A few elements of the perturbable input of `set` changed at the same address. */
kbv_status sample_perturb(sample *s, int set, uint64_t seed);
/* What the candidate broke, "" when nothing: inputs of `set`, params, guards. */
kbv_status sample_integrity(sample *s, int set, char *why, size_t cap, bool *params_touched);

/* ---- the sample (sample.c) --------------------------------------------- */

/* The per-tensor arrays of s, sized by s->g (sample_free frees them). */
kbv_status sample_allocate(sample *s);
/* A sample of graph g (already built), ready for its runner. */
kbv_status sample_new(kbv_evaluator *ev, const kbv_graph *g, const char *key, sample **out);
/* Stops the runner and releases what a sample holds. */
void sample_free(sample *s);
/* The built candidate's symbols, read on first use. */
kbv_status sample_symbols(sample *s, const char *so_path, const kbv_symbols **out);

/* ---- references (references.c) ----------------------------------------- */

typedef struct refs {
    kbv_tensor *out[KBV_MODE_COUNT];   /* by mode, each run once: [n_outputs], allocated */
    bool have[KBV_MODE_COUNT];
    /* by role (eval/precision.h), [n_outputs] each, into out: the allclose
     * reference (NULL when not asked for: the class baseline stands in),
     * strict's class baseline, the baseline whose error sets strict's budget,
     * and the float64 oracle (the last three NULL when strict's are not asked
     * for) */
    const kbv_tensor *ref, *klass, *budget, *oracle;
} refs;

/* Which references a draw needs: the paper's allclose reference (standard
 * and verified), strict's (class and budget baselines, the float64 oracle),
 * or both. A run that does not evaluate strict needs none of strict's. */
typedef enum refs_roles {
    REFS_PAPER = 1u << 0,
    REFS_STRICT = 1u << 1,
} refs_roles;

/* References on input set `set`, the roles asked for (refs_roles bits):
 * the precision's reference; the class and budget baselines and the float64
 * oracle on float64 copies of exactly the candidate's values. */
kbv_status sample_refs_compute(sample *s, int set, unsigned roles, refs *r);
void sample_refs_release(sample *s, refs *r);

/* ---- judging a call (judge_call.c) ------------------------------------- */

/* Poisons every output before a call. */
kbv_status sample_poison_outputs(sample *s);
/* Judges the candidate's current outputs on input set `set`; stored, when
 * not NULL, gets the leaderboard gate's view of them too. */
kbv_status sample_judge_call(sample *s, int set, refs *r, kbv_draw_verdict *v,
                             kbv_stored_draw *stored);

/* ---- the candidate process (sample_child.c) ---------------------------- */

/* "crash: killed by SIGSEGV during D2", also kept as the record's fault. */
void note_child_fault(kbv_record *rec, const kbv_child_result *res, const char *when, char *buf,
                      size_t cap);
kbv_status sample_child_call(sample *s, int set, int n, bool flush, kbv_child_result *res);

/* ---- KernelBench-format candidates (python_audits.c) ------------------- */

/* Whether the built candidate at so_path is a KernelBench-format file. */
bool sample_is_python(const char *so_path);
/* Keeps what a runner's reply says of a KernelBench-format candidate. */
void sample_note_python(sample *s, const kbv_child_result *res);
/* Strict's audits of what the runner saw (torch-patched, no-custom-kernel,
 * python-thread): each a flag and a failure of S. */
void protocol_python_audits(sample *s, kbv_proto_result *S);
kbv_status sample_child_prepare(sample *s, kbv_child_result *res);
/* Stops the runner, keeping what it printed for the record. */
void sample_child_stop(sample *s);
/* Starts (or restarts) the runner and prepares the candidate on the current params. */
kbv_status sample_child_start(sample *s, const char *so_path, kbv_child_result *res);
/* sample_child_start, its time charged to the load phase. */
kbv_status sample_load_child(sample *s, const char *so_path, kbv_child_result *res);

/* ---- the phases (correctness.c, timing.c) ------------------------------ */

typedef struct verdicts {
    kbv_tally std, ver, strict;
    kbv_gate_tally leaderboard;                         /* verified, when that is the gate */
} verdicts;

/* Every planned draw a wanted protocol judges, tallied into vs. A fault
 * fails the protocols not yet decided and ends the phase (KBV_OK). */
kbv_status protocol_correctness(sample *s, const char *so_path, kbv_record *rec, verdicts *vs);

typedef struct std_timing {
    bool ok;
    kbv_time_stats st;
    kbv_clock_guard clock;    /* the SM clock seen around the accepted requests */
    bool throttled;           /* some request stayed throttled through its re-runs */
} std_timing;

typedef struct strict_timing {
    bool ok;
    kbv_time_stats st;
    kbv_clock_guard clock;
    bool throttled;
} strict_timing;

/* A live candidate on the base params for timing, restarting one that faulted
 * after its standard verdict was decided. "" in why when ready. */
kbv_status protocol_ready_for_timing(sample *s, const char *so_path, kbv_record *rec, char *why,
                                     size_t cap);
/* standard/verified: warm cache, set 0 with a base draw, 3 warm-ups (and more
 * until they took KBV_WARMUP_MIN_MS, so the clock has left idle), 100 timed;
 * a request timed on a throttled SM clock is taken again (exec/clock_guard.h). */
kbv_status protocol_time_standard(sample *s, kbv_record *rec, std_timing *out, char *why,
                                  size_t cap);
/* strict: fresh inputs every trial, cache flushed, one call, every timed
 * output judged by the strict rule. */
kbv_status protocol_time_strict(sample *s, kbv_record *rec, strict_timing *out, char *why,
                                size_t cap);

/* ---- strict's audits (strict_audits.c, hidden_shapes.c) ---------------- */

/* Strict audit: what the built candidate imports and exports is on the
 * allowlist. false with the reason. */
bool protocol_binary_allowed(sample *s, const char *so_path, char *why, size_t cap);
/* After strict's timing: the traced pass, the race run and the persisting-L2
 * count; each failure adds its flag, the first one's reason is strict's. */
kbv_status protocol_strict_audits(sample *s, const char *so_path, kbv_record *rec,
                                  kbv_proto_result *S);
/* The hidden shapes strict runs a candidate at, each in a runner of its own. */
#define KBV_HIDDEN_SHAPES 2
/* Strict's advisory flag `shape-specialised`: wrong at a hidden shape. */
kbv_status protocol_hidden_shapes(sample *s, const char *so_path, kbv_record *rec,
                                  kbv_proto_result *S);

/* Fails protocol p with why, unless it failed already (the first reason stays). */
void protocol_fail(kbv_proto_result *p, const char *why);

#endif
