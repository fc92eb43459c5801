#include "cli/eval_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "core/vendor_libs.h"
#include "eval/protocol.h"
#include "report/metrics.h"
#include "report/table.h"
#include "sandbox/spawn.h"

void eval_print_error(const char *what)
{
    kbv_cli_error("kbv eval", what);
}

void eval_run_init(eval_run *run)
{
    memset(run, 0, sizeof *run);
    run->pool = KBV_COMPILE_AHEAD_NONE;
}

const char *eval_run_path(const eval_run *run, int i)
{
    return run->rs.jobs[run->plan[i].job].path;
}

void eval_run_identity(const eval_run *run, int i, kbv_record *rec)
{
    const eval_planned *p = &run->plan[i];
    const kbv_job *job = &run->rs.jobs[p->job];
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "%s", job->model);
    snprintf(rec->file, sizeof rec->file, "%s", job->path);
    kbv_problem_key(p->def, rec->problem, sizeof rec->problem);
    rec->sample = job->sample;
    snprintf(rec->device, sizeof rec->device, "%s", run->device_name);
    snprintf(rec->size, sizeof rec->size, "%s", run->size_name);
    rec->gate = run->gate;
    rec->precision = run->precision;
    rec->vendor_libs = run->vendor_libs;
}

/* "1 .cu for the GPU, 2 KernelBench Python, 1 not a candidate": the entries
 * of the run directories that are not candidates of this run (hidden ones
 * when asked), and the candidates it leaves out, on f when not NULL.
 * Returns how many. */
static int other_entries(FILE *f, const eval_run *run, bool hidden)
{
    const kbv_runset *rs = &run->rs;
    kbv_cand_kind want = run->want;
    struct { int n; const char *one, *many; } part[] = {
        {rs->other_device, want == KBV_CAND_C ? ".cu for the GPU" : ".c for the CPU",
         want == KBV_CAND_C ? ".cu for the GPU" : ".c for the CPU"},
        {rs->kernelbench_py, "KernelBench Python candidate", "KernelBench Python candidates"},
        {rs->not_candidates, "not a candidate", "not candidates"},
        {rs->responses, ".response.json", ".response.json"},
        {run->not_selected, "of a problem not selected", "of problems not selected"},
        {run->unknown_problem, "of a problem kbv does not have",
         "of problems kbv does not have"},
        {hidden ? rs->hidden : 0, "hidden", "hidden"},
    };
    int total = 0, shown = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        total += part[i].n;
    if (!f)
        return total;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        if (part[i].n)
            fprintf(f, "%s%d %s", shown++ ? ", " : "", part[i].n,
                    part[i].n == 1 ? part[i].one : part[i].many);
    return total;
}

/* Nothing to account for although the directories hold entries: the
 * reason, so that a directory of KernelBench Python files, or of the other
 * device's candidates, does not end in an empty table and status 0. */
static void explain_nothing(const eval_run *run, const eval_config *cfg)
{
    kbv_cand_kind want = run->want;
    const char *ext = want == KBV_CAND_C ? ".c" : ".cu";
    int others = other_entries(NULL, run, false);
    fprintf(stderr, "kbv eval: nothing to evaluate: the run director%s given hold%s no %s "
                    "candidate", cfg->n_dirs == 1 ? "y" : "ies", cfg->n_dirs == 1 ? "s" : "",
            ext);
    if (run->not_selected)
        fprintf(stderr, " of the problems selected (--problems %s)", cfg->problems);
    fprintf(stderr, ", only %d other entr%s (", others, others == 1 ? "y" : "ies");
    other_entries(stderr, run, false);
    fprintf(stderr, ")\n");
    if (run->rs.n > 0)
        return;   /* the selection, or the problems, left them out */
    if (run->rs.kernelbench_py)
        fprintf(stderr, "kbv eval: this build of kbv does not evaluate KernelBench Python "
                        "candidates (ModelNew); kbv candidates are level_L_problem_P_sample_S%s "
                        "files implementing kbv_forward (docs/ABI.md)\n", ext);
    if (run->rs.other_device)
        fprintf(stderr, "kbv eval: the %s files are for a %s run (--device %s)\n",
                want == KBV_CAND_C ? ".cu" : ".c", want == KBV_CAND_C ? "GPU" : "CPU",
                want == KBV_CAND_C ? "cuda" : "cpu");
}

/* The resume identity of position i (its file read under the candidate
 * rule); false when kbv itself could not read it (reported). */
static bool plan_identity(eval_run *run, int i, kbv_record *rec)
{
    kbv_candidate_file file;
    const char *path = eval_run_path(run, i);
    kbv_status st = kbv_candidate_file_read(path, &file);
    if (st == KBV_OK) {
        snprintf(rec->source_sha256, sizeof rec->source_sha256, "%s", file.identity);
        run->plan[i].unusable = file.defect != KBV_CANDIDATE_OK;
    }
    kbv_candidate_file_free(&file);
    if (st != KBV_OK) {
        char what[1200];
        snprintf(what, sizeof what, "could not evaluate %s", path);
        eval_print_error(what);
    }
    return st == KBV_OK;
}

bool eval_run_plan(eval_run *run, const eval_config *cfg, kbv_cand_kind want,
                   const char *device_name, const char *size_name)
{
    bool ok = false;
    kbv_record *rec = malloc(sizeof *rec);
    kbv_name_list unknown = {0};
    run->device_name = device_name;
    run->size_name = size_name;
    run->gate = cfg->gate;
    run->precision = cfg->ro.precision;
    run->vendor_libs = cfg->vendor_libs;
    run->want = want;
    if (!rec) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return false;
    }
#ifdef KBV_HAVE_PYTHON
    run->rs.take_python = true;   /* the runner hosts KernelBench-format candidates */
#endif
    for (int d = 0; d < cfg->n_dirs; d++)
        if (kbv_runset_scan(cfg->dirs[d], want, &run->rs, stderr) != KBV_OK) {
            eval_print_error("scanning run directories");
            goto done;
        }
    if (kbv_results_open(cfg->out, &run->res) != KBV_OK) {
        /* a refusal names the file and what to do, in one line */
        eval_print_error(run->res.refused ? NULL : "opening the results file");
        goto done;
    }
    run->res_open = true;
    if (run->res.repaired)
        fprintf(stderr, "kbv eval: %s ended in a torn record (an interrupted run); it is "
                        "ignored and that sample evaluated again\n", cfg->out);
    run->plan = calloc((size_t)run->rs.n + 1, sizeof *run->plan);
    if (!run->plan) {
        fprintf(stderr, "kbv eval: out of memory\n");
        goto done;
    }
    /* The plan: this shard's selected samples not yet in the results file. */
    for (int j = 0; j < run->rs.n; j++) {
        const kbv_job *job = &run->rs.jobs[j];
        if (cfg->problems &&
            !kbv_problem_set_contains(&cfg->selection, job->level, job->problem_id)) {
            run->not_selected++;
            continue;
        }
        char key[32];
        snprintf(key, sizeof key, "L%d/%d", job->level, job->problem_id);
        const kbv_problem *def = kbv_problem_find(key);
        if (!def) {
            run->unknown_problem++;
            kbv_name_list_add(&unknown, job->path, NULL);
            continue;
        }
        run->candidates++;
        if (kbv_shard_of(job->model, job->level, job->problem_id, job->sample,
                         cfg->shard.count) != cfg->shard.index) {
            run->in_other_shards++;
            continue;
        }
        run->plan[run->n_plan] = (eval_planned){.job = j, .def = def};
        eval_run_identity(run, run->n_plan, rec);
        if (!plan_identity(run, run->n_plan, rec)) {
            run->failed++;
            continue;
        }
        /* a sample recorded by a run of fewer protocols is evaluated again */
        if (kbv_results_has_protocols(&run->res, rec,
                                      cfg->protocols ? cfg->protocols : KBV_PROTOCOLS_ALL)) {
            run->resumed++;
            continue;
        }
        run->n_plan++;
    }
    if (unknown.n) {
        fprintf(stderr, "kbv eval: %d candidate%s of problems this kbv does not have (kbv list "
                        "shows them), not evaluated: ", unknown.n, unknown.n == 1 ? "" : "s");
        kbv_name_list_print(stderr, &unknown);
        fprintf(stderr, "\n");
    }
    if (run->candidates == 0) {
        /* hidden files alone (a .gitkeep) leave a directory empty */
        if (other_entries(NULL, run, false) > 0) {
            explain_nothing(run, cfg);
            goto done;
        }
        fprintf(stderr, "kbv eval: no %s candidates in the run director%s given\n",
                want == KBV_CAND_C ? ".c" : ".cu", cfg->n_dirs == 1 ? "y" : "ies");
    }
    ok = true;
done:
    free(rec);
    return ok;
}

void eval_run_announce(const eval_run *run, const eval_config *cfg, const char *extra)
{
    fprintf(stderr, "kbv eval: %d candidate%s in %d run director%s: %d to evaluate, %d already "
                    "recorded", run->candidates, run->candidates == 1 ? "" : "s", run->rs.n_dirs,
            run->rs.n_dirs == 1 ? "y" : "ies", run->n_plan, run->resumed);
    if (cfg->shard.count > 1 || run->in_other_shards)
        fprintf(stderr, ", %d in other shards", run->in_other_shards);
    if (run->failed)
        fprintf(stderr, ", %d could not be evaluated", run->failed);
    int others = other_entries(NULL, run, true);
    if (others) {
        fprintf(stderr, "; %d other entr%s not evaluated (", others, others == 1 ? "y" : "ies");
        other_entries(stderr, run, true);
        fprintf(stderr, ")");
    }
    fprintf(stderr, "\n");
    char libs[64];
    fprintf(stderr, "kbv eval: device %s, size %s%s; vendor libraries: %s; sandbox: %s\n",
            run->device_name, run->size_name, extra ? extra : "",
            kbv_vendor_format(run->vendor_libs, libs, sizeof libs),
            kbv_sandbox_mode_get()->describe);
}

void eval_run_compile_ahead(eval_run *run, const eval_config *cfg, const char *arch)
{
    if (cfg->compile_jobs < 1 || run->n_plan < 1)
        return;
    run->sources = calloc((size_t)run->n_plan, sizeof *run->sources);
    if (!run->sources) {
        fprintf(stderr, "kbv eval: no memory for compile-ahead; evaluators compile for "
                        "themselves\n");
        return;
    }
    for (int i = 0; i < run->n_plan; i++) {
        const char *path = eval_run_path(run, i);
        run->sources[i] = run->plan[i].unusable || kbv_path_is_generation_failure(path) ? NULL
                                                                                       : path;
    }
    kbv_compile_ahead_opts o = {.sources = run->sources, .n = run->n_plan,
                                .parallel = cfg->compile_jobs < run->n_plan ? cfg->compile_jobs
                                                                            : run->n_plan,
                                .arch = arch, .vendor_libs = cfg->vendor_libs};
    if (kbv_compile_ahead_start(&o, &run->pool) != KBV_OK)
        eval_print_error("starting compile-ahead (evaluators compile for themselves)");
}

void eval_run_reached(const eval_run *run, int i)
{
    kbv_compile_ahead_reached(&run->pool, i);
}

/* "[3/9] m L1/19 sample 0: standard PASS 1.02x verified PASS 1.01x strict FAIL
 * [trace-foreign-stream] (2.1 s) -- traced pass: ..." */
static void progress_line(int done, int total, const kbv_record *rec, double seconds)
{
    fprintf(stderr, "[%d/%d] %s %s sample %d:", done, total, rec->model, rec->problem,
            rec->sample);
    const char *reason = NULL;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_result *r = &rec->proto[p];
        if (r->skipped)
            continue;   /* not evaluated (--protocols) */
        fprintf(stderr, " %s %s", kbv_protocol_name((kbv_protocol)p), r->correct ? "PASS" : "FAIL");
        if (isfinite(r->speedup) && r->correct)
            fprintf(stderr, " %.2fx", r->speedup);
        for (int k = 0; k < r->n_flags; k++)   /* strict's audit flags, advisory ones too */
            fprintf(stderr, "%s%s%s", k ? ", " : " [", r->flags[k], k + 1 == r->n_flags ? "]" : "");
        if (!r->correct && !reason)
            reason = r->reason;
    }
    fprintf(stderr, " (%.1f s)", seconds);
    if (reason && reason[0])
        fprintf(stderr, " -- %s", reason);
    fprintf(stderr, "\n");
}

kbv_status eval_run_pace_start(eval_run *run, const eval_config *cfg, int n_workers,
                               const int *devices, int device)
{
    unsigned want = cfg->protocols ? cfg->protocols : KBV_PROTOCOLS_ALL;
    run->protocols[0] = '\0';
    if (want == KBV_PROTOCOLS_ALL)
        snprintf(run->protocols, sizeof run->protocols, "all");
    for (int p = 0; p < KBV_PROTO_COUNT && want != KBV_PROTOCOLS_ALL; p++)
        if (want >> p & 1u) {
            size_t at = strlen(run->protocols);
            snprintf(run->protocols + at, sizeof run->protocols - at, "%s%s", at ? "," : "",
                     kbv_protocol_name((kbv_protocol)p));
        }
    kbv_pace_start(&run->pace, run->protocols);
    for (int w = 0; w < (n_workers > 0 ? n_workers : 1); w++)
        KBV_TRY(kbv_pace_worker(&run->pace, n_workers > 0 && devices ? devices[w] : device));
    return KBV_OK;
}

kbv_status eval_run_done(eval_run *run, int i, int device, const kbv_record *rec,
                         double seconds)
{
    KBV_TRY(kbv_pace_add(&run->pace, device, rec));
    (void)i;
    KBV_TRY(kbv_results_append(&run->res, rec));
    run->evaluated++;
    /* the evaluator's read, not the plan's, says what the file was */
    kbv_candidate_defect defect = rec->compile.ok ? KBV_CANDIDATE_OK
                                                  : kbv_candidate_defect_of_reason(rec->compile.log);
    if (defect != KBV_CANDIDATE_OK)
        run->unusable[defect]++;
    progress_line(run->evaluated + run->resumed + run->failed,
                  run->candidates - run->in_other_shards, rec, seconds);
    return KBV_OK;
}

void eval_run_failed(eval_run *run, int i, const char *why)
{
    fprintf(stderr, "kbv eval: could not evaluate %s:\n%s\n", eval_run_path(run, i), why);
    run->failed++;
}

kbv_status eval_run_received(eval_run *run, int i, int device, const kbv_record *rec,
                             double seconds)
{
    kbv_record *want = malloc(sizeof *want);
    if (!want)
        return kbv_fail(KBV_ERR_NOMEM, "checking a record");
    eval_run_identity(run, i, want);
    bool same = !strcmp(want->model, rec->model) && !strcmp(want->problem, rec->problem) &&
                want->sample == rec->sample && !strcmp(want->device, rec->device) &&
                !strcmp(want->size, rec->size);
    free(want);
    if (!same) {
        eval_run_failed(run, i, "a worker returned the record of another sample or device");
        return KBV_OK;
    }
    KBV_TRY(eval_run_done(run, i, device, rec, seconds));
    return KBV_OK;
}

/* Metrics over the records of this device, size, gate, precision and vendor libraries, to
 * the table and the summary. */
static int report(const char *out, const char *summary, const char *device, const char *size,
                  kbv_gate gate, kbv_precision precision, unsigned vendor_libs,
                  const kbv_pace *pace)
{
    json_t *pace_json = NULL;
    char libs[64];
    kbv_record_list all, mine;
    memset(&mine, 0, sizeof mine);
    kbv_metrics m;
    memset(&m, 0, sizeof m);
    int status = 1;
    if (kbv_records_load(out, &all) != KBV_OK) {
        eval_print_error("reading the results back");
        return 1;
    }
    int other = 0;
    for (int i = 0; i < all.n; i++) {
        const kbv_record *r = &all.items[i];
        if (strcmp(r->device, device) || strcmp(r->size, size) || r->gate != gate ||
            r->precision != precision || r->vendor_libs != vendor_libs) {
            other++;
            continue;
        }
        if (kbv_record_list_push(&mine, r) != KBV_OK) {
            eval_print_error("collecting records");
            goto done;
        }
    }
    if (other)
        fprintf(stderr, "kbv eval: %d record%s of another device, size, gate, precision or "
                        "vendor libraries left out of the summary\n", other, other == 1 ? "" : "s");
    if (all.malformed)
        fprintf(stderr, "kbv eval: %d malformed line%s in %s ignored (first: line %d; a record "
                        "torn by an interrupted run)\n", all.malformed,
                all.malformed == 1 ? "" : "s", out, all.first_malformed_line);
    if (kbv_metrics_compute(mine.items, mine.n, &m) != KBV_OK) {
        eval_print_error("computing the metrics");
        goto done;
    }
    kbv_summary_info info = {.results_path = out, .device = device, .size = size,
                             .gate = kbv_gate_get(gate)->name,
                             .precision = kbv_precision_get(precision)->name,
                             .n_records = mine.n,
                             .vendor_libs = kbv_vendor_format(vendor_libs, libs, sizeof libs)};
    kbv_table_print(stdout, &m, &info);
    kbv_pace_print(stdout, pace);
    kbv_pace_lane counted;
    kbv_pace_total(pace, &counted);
    if (counted.samples > 0) {
        if (kbv_pace_json(pace, &pace_json) != KBV_OK) {
            eval_print_error("the pace");
            goto done;
        }
        info.pace = pace_json;
    }
    if (kbv_summary_write(summary, &m, &info) != KBV_OK) {
        eval_print_error("writing the summary");
        goto done;
    }
    fprintf(stderr, "kbv eval: summary in %s\n", summary);
    status = 0;
done:
    json_decref(pace_json);
    kbv_metrics_free(&m);
    kbv_record_list_free(&mine);
    kbv_record_list_free(&all);
    return status;
}

/* Stops the pool and says what it did. */
static void stop_compile_ahead(eval_run *run)
{
    if (run->pool.pid < 0)
        return;
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&run->pool, &s);
    fprintf(stderr, "kbv eval: compile-ahead: %d built, %d did not compile, %d already "
                    "cached, %d reached by an evaluator first, %d left to the evaluators",
            s.built, s.failed, s.cached, s.passed, s.left);
    if (s.built + s.failed > 0)
        fprintf(stderr, " (all within %.1f s)", s.seconds);
    fprintf(stderr, "\n");
}

void eval_run_account(const eval_run *run)
{
    int unusable = 0;
    for (int d = 1; d < KBV_CANDIDATE_DEFECT_COUNT; d++)
        unusable += run->unusable[d];
    fprintf(stderr, "kbv eval: %d candidate%s: %d evaluated", run->candidates,
            run->candidates == 1 ? "" : "s", run->evaluated);
    if (unusable) {
        fprintf(stderr, " (%d unusable file%s:", unusable, unusable == 1 ? "" : "s");
        for (int d = 1, shown = 0; d < KBV_CANDIDATE_DEFECT_COUNT; d++)
            if (run->unusable[d])
                fprintf(stderr, "%s %d %s", shown++ ? "," : "", run->unusable[d],
                        kbv_candidate_defect_words((kbv_candidate_defect)d, run->unusable[d]));
        fprintf(stderr, ")");
    }
    fprintf(stderr, ", %d could not be evaluated, %d resumed", run->failed, run->resumed);
    if (run->in_other_shards)
        fprintf(stderr, ", %d in other shards", run->in_other_shards);
    int not_reached = run->candidates - run->evaluated - run->failed - run->resumed -
                      run->in_other_shards;
    if (not_reached)
        fprintf(stderr, ", %d not reached (the run stopped; a rerun resumes)", not_reached);
    fprintf(stderr, "\n");
}

int eval_run_finish(eval_run *run, const eval_config *cfg)
{
    kbv_pace_stop(&run->pace);
    stop_compile_ahead(run);
    eval_run_account(run);
    int status = report(cfg->out, cfg->summary, run->device_name, run->size_name, run->gate,
                        run->precision, run->vendor_libs, &run->pace);
    return run->failed ? 1 : status;
}

void eval_run_free(eval_run *run)
{
    stop_compile_ahead(run);
    if (run->res_open)
        kbv_results_close(&run->res);
    kbv_runset_free(&run->rs);
    free(run->sources);
    free(run->plan);
    memset(run, 0, sizeof *run);
    run->pool = KBV_COMPILE_AHEAD_NONE;
}
