/* kbv eval: evaluate run directories of candidates into a results file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "eval/draws.h"
#include "eval/protocol.h"
#include "eval/runset.h"
#include "eval/shard.h"
#include "eval/workers.h"
#include "report/metrics.h"
#include "report/results.h"
#include "report/table.h"

#define MAX_DIRS 256

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv eval RUN_DIR... --out RESULTS.jsonl [--summary FILE] [--device cpu|cuda]\n"
            "                [--size full|small] [--seed N] [--timeout S] [--problems SEL]\n"
            "                [--shard I/N] [--workers K] [--gpus LIST]\n\n"
            "Each RUN_DIR holds one model's candidates, named level_L_problem_P_sample_S.cu\n"
            "(or .c for the CPU backend); the model name is the directory's basename. A\n"
            "level_L_problem_P_sample_S.failed.json (kbv generate got no code) is a failed\n"
            "sample; .response.json files are passed over. Every\n"
            "candidate is compiled and evaluated under the three protocols (standard,\n"
            "verified, strict) and one JSON record per candidate is appended to RESULTS.jsonl\n"
            "(flushed to disk as it is written). A rerun with the same --out resumes: samples\n"
            "already recorded with the same source, size and device are skipped. One line per\n"
            "finished sample goes to stderr; at the end a table per model (correct %%,\n"
            "speedup, Fast@1, fallback speedup, memory efficiency, memory-efficient %%, SOL\n"
            "fraction for each protocol) goes to stdout and the same numbers to the summary.\n\n"
            "  --out FILE         the results file (JSONL), created or resumed (required)\n"
            "  --summary FILE     the summary JSON (default: the results file's name +\n"
            "                     .summary.json)\n"
            "  --device cpu|cuda  where to run (default: cuda when a GPU is usable). A CPU run\n"
            "                     takes the .c files and skips .cu files, a GPU run the reverse\n"
            "  --size full|small  the catalog's shapes or the small CI shapes (default: full\n"
            "                     on a GPU, small on the CPU)\n"
            "  --seed N           the run seed (0 .. 2^53-1); default: a fresh secret seed,\n"
            "                     recorded in every record\n"
            "  --timeout S        deadline of each request to a candidate, seconds (default 60)\n"
            "  --problems SEL     only these problems, e.g. L1/1-32 or L1/19,L1/23\n"
            "  --shard I/N        only shard I of N (0 <= I < N): every sample belongs to\n"
            "                     exactly one shard, by a hash of its model, problem and sample\n"
            "                     number. The results go to RESULTS.shard-I-of-N.jsonl instead\n"
            "                     of RESULTS.jsonl (a name without .jsonl gets .shard-I-of-N\n"
            "                     appended), a rerun resumes that shard, and kbv merge joins\n"
            "                     the shards' files. Default: from the launcher's environment,\n"
            "                     the first pair set of SLURM_PROCID/SLURM_NTASKS,\n"
            "                     OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE;\n"
            "                     --shard 0/1 evaluates everything into RESULTS.jsonl\n"
            "  --workers K        evaluate in K worker processes, each job handed to the next\n"
            "                     free worker; this process alone writes the results file. On\n"
            "                     the CPU each worker evaluates on the CPU (K workers share the\n"
            "                     cores, so their times are not comparable to a single run's).\n"
            "                     On a GPU run each worker has a GPU of its own: K is at most\n"
            "                     the number of GPUs and the first K of them are used\n"
            "  --gpus LIST        GPU run: the devices to use, one worker each, e.g. 0,1\n"
            "                     (default: every visible GPU; with one, no worker process)\n"
            "  --help             this text\n\n"
            "Exit status: 0 when every candidate was evaluated (whatever the verdicts), 1 when\n"
            "some could not be (the reasons are on stderr; rerun to retry them), 2 on bad usage.\n"
            "docs/SCALING.md describes sharding, workers and kbv merge.\n");
}

static void print_error(const char *what)
{
    fprintf(stderr, "kbv eval: %s:\n%s\n", what, kbv_last_error());
    kbv_clear_error();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "standard PASS, verified PASS, strict FAIL (D6: ...)" */
static void progress_line(int done, int total, const kbv_record *rec, double seconds)
{
    fprintf(stderr, "[%d/%d] %s %s sample %d:", done, total, rec->model, rec->problem,
            rec->sample);
    const char *reason = NULL;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_result *r = &rec->proto[p];
        fprintf(stderr, " %s %s", kbv_protocol_name((kbv_protocol)p), r->correct ? "PASS" : "FAIL");
        if (isfinite(r->speedup) && r->correct)
            fprintf(stderr, " %.2fx", r->speedup);
        if (!r->correct && !reason)
            reason = r->reason;
    }
    fprintf(stderr, " (%.1f s)", seconds);
    if (reason && reason[0])
        fprintf(stderr, " -- %s", reason);
    fprintf(stderr, "\n");
}

/* Metrics over the records of this device and size, to the table and the summary. */
static int report(const char *out, const char *summary, const char *device, const char *size)
{
    kbv_record_list all, mine;
    memset(&mine, 0, sizeof mine);
    kbv_metrics m;
    memset(&m, 0, sizeof m);
    int status = 1;
    if (kbv_records_load(out, &all) != KBV_OK) {
        print_error("reading the results back");
        return 1;
    }
    int other = 0;
    for (int i = 0; i < all.n; i++) {
        const kbv_record *r = &all.items[i];
        if (strcmp(r->device, device) || strcmp(r->size, size)) {
            other++;
            continue;
        }
        if (kbv_record_list_push(&mine, r) != KBV_OK) {
            print_error("collecting records");
            goto done;
        }
    }
    if (other)
        fprintf(stderr, "kbv eval: %d record%s of another device or size left out of the "
                        "summary\n", other, other == 1 ? "" : "s");
    if (all.malformed)
        fprintf(stderr, "kbv eval: %d malformed line%s in %s ignored (first: line %d; a record "
                        "torn by an interrupted run)\n", all.malformed,
                all.malformed == 1 ? "" : "s", out, all.first_malformed_line);
    if (kbv_metrics_compute(mine.items, mine.n, &m) != KBV_OK) {
        print_error("computing the metrics");
        goto done;
    }
    kbv_summary_info info = {.results_path = out, .device = device, .size = size,
                             .n_records = mine.n};
    kbv_table_print(stdout, &m, &info);
    if (kbv_summary_write(summary, &m, &info) != KBV_OK) {
        print_error("writing the summary");
        goto done;
    }
    fprintf(stderr, "kbv eval: summary in %s\n", summary);
    status = 0;
done:
    kbv_metrics_free(&m);
    kbv_record_list_free(&mine);
    kbv_record_list_free(&all);
    return status;
}

/* A sample to evaluate: its job in the run set and its problem. */
typedef struct planned {
    int job;
    const kbv_problem_def *def;
} planned;

/* The state of one run, shared by the in-process loop and the workers'
 * callbacks (the workers inherit it by fork). */
typedef struct eval_run {
    const kbv_runset *rs;
    planned *plan;
    int n_plan;
    kbv_results *res;
    const char *device_name;
    const char *size_name;
    uint64_t seed;
    int total, evaluated, resumed, failed;
} eval_run;

/* The identity fields of a sample's record (what resume compares). */
static void fill_identity(const eval_run *run, const planned *p, kbv_record *rec)
{
    const kbv_job *job = &run->rs->jobs[p->job];
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "%s", job->model);
    snprintf(rec->file, sizeof rec->file, "%s", job->path);
    kbv_problem_key(p->def, rec->problem, sizeof rec->problem);
    rec->sample = job->sample;
    snprintf(rec->device, sizeof rec->device, "%s", run->device_name);
    snprintf(rec->size, sizeof rec->size, "%s", run->size_name);
}

static void job_failed(eval_run *run, int i, const char *why)
{
    fprintf(stderr, "kbv eval: could not evaluate %s:\n%s\n", run->rs->jobs[run->plan[i].job].path,
            why);
    run->failed++;
}

/* Appends a finished record and reports it. */
static kbv_status job_done(eval_run *run, const kbv_record *rec, double seconds)
{
    KBV_TRY(kbv_results_append(run->res, rec));
    run->evaluated++;
    progress_line(run->evaluated + run->resumed + run->failed, run->total, rec, seconds);
    return KBV_OK;
}

/* ---- the workers' callbacks ---- */

static kbv_status worker_evaluate(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache,
                                  int i, kbv_record *rec)
{
    const eval_run *run = ctx;
    const planned *p = &run->plan[i];
    fill_identity(run, p, rec);
    KBV_TRY(kbv_sample_evaluate(ev, cache, p->def, run->rs->jobs[p->job].path, rec, NULL));
    return KBV_OK;
}

static kbv_status worker_record(void *ctx, int i, const kbv_record *rec, double seconds)
{
    eval_run *run = ctx;
    kbv_record *want = malloc(sizeof *want);
    if (!want)
        return kbv_fail(KBV_ERR_NOMEM, "checking a record");
    fill_identity(run, &run->plan[i], want);
    bool same = !strcmp(want->model, rec->model) && !strcmp(want->problem, rec->problem) &&
                want->sample == rec->sample && !strcmp(want->device, rec->device) &&
                !strcmp(want->size, rec->size);
    free(want);
    if (!same) {
        job_failed(run, i, "a worker returned the record of another sample or device");
        return KBV_OK;
    }
    KBV_TRY(job_done(run, rec, seconds));
    return KBV_OK;
}

static void worker_failed(void *ctx, int i, const char *why)
{
    job_failed(ctx, i, why);
}

static const char *worker_describe(void *ctx, int i)
{
    const eval_run *run = ctx;
    return run->rs->jobs[run->plan[i].job].path;
}

/* Whether a number of workers is a count from 1 to KBV_MAX_WORKERS. */
static bool parse_workers(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > KBV_MAX_WORKERS)
        return false;
    *out = (int)v;
    return true;
}

int kbv_cmd_eval(int argc, char **argv)
{
    const char *dirs[MAX_DIRS];
    int n_dirs = 0;
    const char *out = NULL, *summary = NULL;
    const char *problems = NULL, *shard_s = NULL, *gpus_s = NULL;
    kbv_run_options ro = {0};
    int n_workers_opt = 0, taken;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--out") && a + 1 < argc) {
            out = argv[++a];
        } else if (!strcmp(arg, "--summary") && a + 1 < argc) {
            summary = argv[++a];
        } else if ((taken = kbv_run_option_take("kbv eval", argc, argv, &a, true, &ro)) != 0) {
            if (taken < 0)
                return 2;
        } else if (!strcmp(arg, "--problems") && a + 1 < argc) {
            problems = argv[++a];
        } else if (!strcmp(arg, "--shard") && a + 1 < argc) {
            shard_s = argv[++a];
        } else if (!strcmp(arg, "--gpus") && a + 1 < argc) {
            gpus_s = argv[++a];
        } else if (!strcmp(arg, "--workers") && a + 1 < argc) {
            if (!parse_workers(argv[++a], &n_workers_opt)) {
                fprintf(stderr, "kbv eval: --workers needs a number from 1 to %d, got '%s'\n",
                        KBV_MAX_WORKERS, argv[a]);
                return 2;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "kbv eval: unknown or incomplete option '%s' (see kbv eval --help)\n",
                    arg);
            return 2;
        } else if (n_dirs < MAX_DIRS) {
            dirs[n_dirs++] = arg;
        } else {
            fprintf(stderr, "kbv eval: more than %d run directories\n", MAX_DIRS);
            return 2;
        }
    }
    if (n_dirs == 0 || !out) {
        fprintf(stderr, "kbv eval: %s\n\n", n_dirs == 0 ? "no run directory given"
                                                        : "--out RESULTS.jsonl is required");
        usage(stderr);
        return 2;
    }
    if (kbv_run_options_check("kbv eval", &ro))
        return 2;
    const char *device = ro.device, *size = ro.size, *seed_s = ro.seed;
    double timeout = ro.timeout_s;
    if (gpus_s && device && !strcmp(device, "cpu")) {
        fprintf(stderr, "kbv eval: --gpus is for GPU runs, not --device cpu (use --workers)\n");
        return 2;
    }
    kbv_problem_set selection;
    if (problems && kbv_problem_set_parse(problems, &selection) != KBV_OK) {
        fprintf(stderr, "kbv eval: %s\n", kbv_last_error());
        return 2;
    }
    kbv_eval_opts opts = {.call_timeout_s = timeout};
    if (seed_s && kbv_seed_parse(seed_s, &opts.run_seed) != KBV_OK) {
        fprintf(stderr, "kbv eval: %s\n", kbv_last_error());
        return 2;
    }
    kbv_shard shard;
    if (kbv_shard_resolve(shard_s, &shard) != KBV_OK) {
        fprintf(stderr, "kbv eval: %s\n", kbv_last_error());
        kbv_clear_error();
        return 2;
    }
    char out_buf[1100];
    if (kbv_shard_out_path(out, &shard, out_buf, sizeof out_buf) != KBV_OK) {
        fprintf(stderr, "kbv eval: %s\n", kbv_last_error());
        return 2;
    }
    out = out_buf;
    char summary_buf[1200];
    if (!summary) {
        snprintf(summary_buf, sizeof summary_buf, "%s.summary.json", out);
        summary = summary_buf;
    }

    int status = 1;
    kbv_runset rs;
    memset(&rs, 0, sizeof rs);
    kbv_results res;
    bool res_open = false, cache_open = false;
    kbv_baseline_cache cache;
    kbv_evaluator *ev = NULL;
    kbv_record *rec = malloc(sizeof *rec);
    kbv_device_probe *probe = malloc(sizeof *probe);
    eval_run run = {.rs = &rs, .res = &res};
    int *order = NULL;
    int n_workers = 0, devices[KBV_MAX_WORKERS];
    if (!rec || !probe) {
        fprintf(stderr, "kbv eval: out of memory\n");
        goto done;
    }
    /* The device is found in a child process: with workers, this process
     * must not initialise CUDA before it forks them. */
    if (kbv_devices_probe(device, size, probe) != KBV_OK) {
        print_error("choosing the device");
        goto done;
    }
    opts.device = probe->opts.device;
    opts.size = probe->opts.size;
    const char *worker_device = probe->cpu_name;
    if (opts.device < 0 && gpus_s) {
        fprintf(stderr, "kbv eval: --gpus: this run is on the CPU (no usable GPU); use "
                        "--workers K\n");
        status = 2;
        goto done;
    }
    if (opts.device < 0) {
        n_workers = n_workers_opt;
        for (int i = 0; i < n_workers; i++)
            devices[i] = -1;
    } else {
        int n_list = 0;
        if (gpus_s) {
            if (kbv_gpu_list_parse(gpus_s, probe->n_gpus, devices, KBV_MAX_WORKERS, &n_list) !=
                KBV_OK) {
                fprintf(stderr, "kbv eval: %s\n", kbv_last_error());
                status = 2;
                goto done;
            }
        } else {
            for (int d = 0; d < probe->n_gpus && d < KBV_MAX_WORKERS; d++)
                devices[n_list++] = d;
        }
        if (n_workers_opt > n_list) {
            fprintf(stderr, "kbv eval: --workers %d: a GPU run has one worker per GPU, and %d "
                            "%s available\n", n_workers_opt, n_list,
                    n_list == 1 ? "is" : "are");
            status = 2;
            goto done;
        }
        if (n_workers_opt)
            n_list = n_workers_opt;
        n_workers = gpus_s || n_workers_opt || n_list > 1 ? n_list : 0;
        if (n_workers)
            worker_device = probe->names[devices[0]];
        for (int i = 1; i < n_workers; i++)
            if (strcmp(probe->names[devices[i]], worker_device)) {
                fprintf(stderr, "kbv eval: GPU %d is '%s' and GPU %d '%s': results are kept "
                                "per device model, so list GPUs of one model with --gpus\n",
                        devices[0], worker_device, devices[i], probe->names[devices[i]]);
                goto done;
            }
        if (!n_workers)
            opts.device = devices[0];
    }
    if (shard.count > 1)
        fprintf(stderr, "kbv eval: shard %d of %d (%s%s; shards are numbered from 0), results "
                        "in %s\n", shard.index, shard.count,
                strcmp(shard.source, "--shard") ? "from " : "", shard.source, out);

    kbv_cand_kind want = opts.device >= 0 ? KBV_CAND_CUDA : KBV_CAND_C;
    for (int d = 0; d < n_dirs; d++)
        if (kbv_runset_scan(dirs[d], want, &rs, stderr) != KBV_OK) {
            print_error("scanning run directories");
            goto done;
        }
    if (rs.n == 0) {
        fprintf(stderr, "kbv eval: no %s candidates in the run director%s given\n",
                want == KBV_CAND_C ? ".c" : ".cu", n_dirs == 1 ? "y" : "ies");
    }
    if (kbv_results_open(out, &res) != KBV_OK) {
        print_error("opening the results file");
        goto done;
    }
    res_open = true;
    if (res.repaired)
        fprintf(stderr, "kbv eval: %s ended in a torn record (an interrupted run); it is "
                        "ignored and that sample evaluated again\n", out);
    if (!seed_s && kbv_run_seed_new(&opts.run_seed) != KBV_OK) {
        print_error("drawing the run seed");
        goto done;
    }
    if (!n_workers) {
        if (kbv_evaluator_create(&opts, &ev) != KBV_OK) {
            print_error("creating the backends");
            goto done;
        }
        if (kbv_baseline_cache_open(ev->device_name, &cache) != KBV_OK) {
            print_error("opening the baseline cache");
            goto done;
        }
        cache_open = true;
        worker_device = ev->device_name;
    }
    run.device_name = worker_device;
    run.size_name = kbv_size_name(opts.size);
    run.plan = calloc((size_t)rs.n + 1, sizeof *run.plan);
    order = calloc((size_t)rs.n + 1, sizeof *order);
    if (!run.plan || !order) {
        fprintf(stderr, "kbv eval: out of memory\n");
        goto done;
    }
    /* The plan: this shard's selected samples not yet in the results file. */
    int in_other_shards = 0;
    for (int j = 0; j < rs.n; j++) {
        const kbv_job *job = &rs.jobs[j];
        if (problems && !kbv_problem_set_contains(&selection, job->level, job->problem_id))
            continue;
        if (kbv_shard_of(job->model, job->level, job->problem_id, job->sample, shard.count) !=
            shard.index) {
            in_other_shards++;
            continue;
        }
        run.total++;
        char key[32];
        snprintf(key, sizeof key, "L%d/%d", job->level, job->problem_id);
        const kbv_problem_def *def = kbv_problem_find(key);
        if (!def) {
            fprintf(stderr, "kbv eval: skipping %s: there is no problem %s\n", job->path, key);
            continue;
        }
        planned p = {.job = j, .def = def};
        fill_identity(&run, &p, rec);
        if (kbv_file_sha256(job->path, rec->source_sha256) != KBV_OK) {
            print_error(job->path);
            run.failed++;
            continue;
        }
        if (kbv_results_has(&res, rec)) {
            run.resumed++;
            continue;
        }
        order[run.n_plan] = run.n_plan;
        run.plan[run.n_plan++] = p;
    }
    fprintf(stderr, "kbv eval: %d candidate%s", run.total, run.total == 1 ? "" : "s");
    if (shard.count > 1)
        fprintf(stderr, " in this shard (%d in the others)", in_other_shards);
    fprintf(stderr, ", device %s, size %s", worker_device, run.size_name);
    if (n_workers)
        fprintf(stderr, ", %d worker%s", n_workers, n_workers == 1 ? "" : "s");
    fprintf(stderr, "\n");

    if (n_workers && run.n_plan > 0) {
        opts.device = devices[0];
        kbv_workers_opts wo = {.n = n_workers < run.n_plan ? n_workers : run.n_plan,
                               .devices = devices, .eval = opts,
                               .device_name = worker_device};
        kbv_worker_ops ops = {.evaluate = worker_evaluate, .record = worker_record,
                              .failed = worker_failed, .describe = worker_describe,
                              .ctx = &run};
        kbv_workers_stats stats;
        kbv_status wst = kbv_workers_run(&wo, order, run.n_plan, &ops, &stats);
        if (stats.deaths)
            fprintf(stderr, "kbv eval: %d worker%s died holding a job; %d job%s retried on "
                            "another worker\n", stats.deaths, stats.deaths == 1 ? "" : "s",
                    stats.retried, stats.retried == 1 ? " was" : "s were");
        if (wst != KBV_OK) {
            print_error("running the workers");
            goto done;   /* what was written stays; a rerun resumes */
        }
    }
    for (int i = 0; !n_workers && i < run.n_plan; i++) {
        const planned *p = &run.plan[i];
        const kbv_job *job = &rs.jobs[p->job];
        fill_identity(&run, p, rec);
        double t0 = now_s();
        if (kbv_sample_evaluate(ev, &cache, p->def, job->path, rec, NULL) != KBV_OK) {
            char what[1200];
            snprintf(what, sizeof what, "could not evaluate %s", job->path);
            print_error(what);
            run.failed++;
            continue;
        }
        if (job_done(&run, rec, now_s() - t0) != KBV_OK) {
            print_error("writing the results");
            goto done;   /* nothing can be recorded: stop, what was written stays */
        }
    }
    if (run.resumed)
        fprintf(stderr, "kbv eval: %d sample%s already in %s (resumed)\n", run.resumed,
                run.resumed == 1 ? "" : "s", out);
    fprintf(stderr, "kbv eval: %d evaluated, %d could not be evaluated\n", run.evaluated,
            run.failed);
    status = report(out, summary, worker_device, run.size_name);
    if (run.failed)
        status = 1;
done:
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    if (res_open)
        kbv_results_close(&res);
    kbv_runset_free(&rs);
    free(order);
    free(run.plan);
    free(probe);
    free(rec);
    return status;
}
