/* kbv eval --mpi: rank 0 plans, hands out and records; the other ranks
 * evaluate (src/mpi/mpi_eval.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli_error.h"
#include "cli/eval_run.h"
#include "dist/draws.h"
#include "eval/protocol.h"
#include "mpi/mpi_eval.h"

/* ---- rank 0 ---- */

typedef struct coordinator_ctx {
    const eval_config *cfg;
    eval_run run;
    kbv_mpi_device dev;
    int ranks;
} coordinator_ctx;

static kbv_status plan(void *ctx, const kbv_mpi_device *dev, int *n_jobs)
{
    coordinator_ctx *c = ctx;
    c->dev = *dev;
    bool gpu = dev->arch[0] != '\0';
    if (!eval_run_plan(&c->run, c->cfg, gpu ? KBV_CAND_CUDA : KBV_CAND_C, c->dev.name,
                       c->dev.size))
        return kbv_fail(KBV_ERR_INVALID, "planning the run failed (see above)");
    char extra[96];
    snprintf(extra, sizeof extra, ", %d rank%s evaluating (MPI)", c->ranks,
             c->ranks == 1 ? "" : "s");
    eval_run_announce(&c->run, c->cfg, extra);
    eval_run_compile_ahead(&c->run, c->cfg, gpu ? c->dev.arch : NULL);
    *n_jobs = c->run.n_plan;
    return KBV_OK;
}

/* What a rank needs of job i: the file, its model, problem and sample. */
static kbv_status job_text(void *ctx, int i, char **text)
{
    coordinator_ctx *c = ctx;
    kbv_record *rec = malloc(sizeof *rec);
    if (!rec)
        return kbv_fail(KBV_ERR_NOMEM, "describing a job");
    eval_run_identity(&c->run, i, rec);
    json_t *o = json_pack("{s:s, s:s, s:s, s:i}", "path", eval_run_path(&c->run, i), "model",
                          rec->model, "problem", rec->problem, "sample", rec->sample);
    free(rec);
    *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!*text)
        return kbv_fail(KBV_ERR_NOMEM, "describing a job");
    return KBV_OK;
}

static void dispatched(void *ctx, int i)
{
    coordinator_ctx *c = ctx;
    eval_run_reached(&c->run, i);
}

static kbv_status record(void *ctx, int i, const kbv_record *rec, double seconds)
{
    coordinator_ctx *c = ctx;
    KBV_TRY(eval_run_received(&c->run, i, KBV_PACE_ANY_DEVICE, rec, seconds));
    return KBV_OK;
}

static void failed(void *ctx, int i, const char *why)
{
    coordinator_ctx *c = ctx;
    eval_run_failed(&c->run, i, why);
}

static int coordinate(const eval_config *cfg, const kbv_mpi_world *w, bool *abort_all)
{
    coordinator_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return 1;
    }
    c->cfg = cfg;
    c->ranks = w->size - 1;
    eval_run_init(&c->run);
    kbv_mpi_coordinator_ops ops = {.plan = plan, .job_text = job_text, .dispatched = dispatched,
                                   .record = record, .failed = failed, .ctx = c};
    kbv_mpi_stats stats;
    memset(&stats, 0, sizeof stats);
    int status = 1;
    fprintf(stderr, "kbv eval: MPI: %d rank%s; rank 0 hands out the jobs and writes %s\n",
            w->size, w->size == 1 ? "" : "s", cfg->out);
    /* the ranks' devices are not told apart: one lane of c->ranks evaluators */
    kbv_status st = eval_run_pace_start(&c->run, cfg, c->ranks, NULL, KBV_PACE_ANY_DEVICE);
    if (st == KBV_OK)
        st = kbv_mpi_coordinate(w, &ops, &stats);
    /* a finalize could wait forever for a rank that is gone */
    *abort_all = st != KBV_OK || stats.lost > 0 || stats.signal != 0;
    if (st != KBV_OK) {
        eval_print_error("running the MPI ranks");
        if (c->run.candidates > 0)
            eval_run_account(&c->run);
    } else if (stats.signal) {
        fprintf(stderr, "kbv eval: stopped (%s); rerun to resume\n",
                stats.signal == SIGHUP ? "the launcher is gone" : strsignal(stats.signal));
        eval_run_account(&c->run);
    } else {
        status = eval_run_finish(&c->run, cfg);
    }
    if (stats.unused)
        fprintf(stderr, "kbv eval: %d of %d evaluating rank%s did not evaluate (see above)\n",
                stats.unused, stats.ranks, stats.ranks == 1 ? "" : "s");
    if (stats.lost) {
        fprintf(stderr, "kbv eval: %d rank%s lost; %s not recorded, a rerun evaluates %s\n",
                stats.lost, stats.lost == 1 ? "" : "s",
                stats.lost == 1 ? "its job was" : "their jobs were",
                stats.lost == 1 ? "it" : "them");
        status = 1;
    }
    eval_run_free(&c->run);
    free(c);
    return status;
}

/* ---- the evaluating ranks ---- */

static kbv_status evaluate(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache,
                           const char *text, kbv_record *rec)
{
    (void)ctx;
    kbv_status st = KBV_OK;
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    const char *path = NULL, *model = NULL, *problem = NULL;
    int sample = -1;
    if (!o || json_unpack(o, "{s:s, s:s, s:s, s:i}", "path", &path, "model", &model, "problem",
                          &problem, "sample", &sample) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "a job this rank cannot read: %.200s", text);
    const kbv_problem *def = kbv_problem_find(problem);
    if (!def)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOT_FOUND, "there is no problem %s in this kbv", problem);
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "%s", model);
    snprintf(rec->file, sizeof rec->file, "%s", path);
    rec->sample = sample;
    KBV_TRY_GOTO(kbv_sample_evaluate(ev, cache, def, path, rec, NULL), st, done);
done:
    json_decref(o);
    return st;
}

static int serve(const eval_config *cfg, const kbv_mpi_world *w, uint64_t seed)
{
    kbv_eval_opts eo = {.call_timeout_s = cfg->ro.timeout_s, .run_seed = seed,
                        .protocols = cfg->protocols, .gate = cfg->gate,
                        .start_ahead = cfg->start_ahead,
                        .start_ahead_depth = cfg->start_ahead_depth,
                        .precision = cfg->ro.precision,
                        .vendor_libs = cfg->vendor_libs};
    kbv_mpi_evaluator_ops ops = {.evaluate = evaluate};
    if (kbv_mpi_serve(w, cfg->ro.device, cfg->ro.size, &eo, &ops) != KBV_OK) {
        char what[64];
        snprintf(what, sizeof what, "rank %d", w->rank);
        eval_print_error(what);
        return 1;
    }
    return 0;
}

int eval_mpi(const eval_config *cfg)
{
    uint64_t seed = 0;
    if (cfg->ro.seed ? kbv_seed_parse(cfg->ro.seed, &seed) != KBV_OK
                     : kbv_run_seed_new(&seed) != KBV_OK) {
        kbv_cli_error("kbv eval", NULL);
        return cfg->ro.seed ? 2 : 1;
    }
    kbv_mpi_world w;
    if (kbv_mpi_begin(&seed, &w) != KBV_OK) {
        eval_print_error("starting MPI");
        return 1;
    }
    bool abort_all = false;
    int status = w.rank == 0 ? coordinate(cfg, &w, &abort_all) : serve(cfg, &w, seed);
    kbv_mpi_end(abort_all, status);
    return status;
}
