/* kbv eval: evaluate run directories of candidates into a results file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "eval/draws.h"
#include "eval/protocol.h"
#include "eval/runset.h"
#include "report/metrics.h"
#include "report/results.h"
#include "report/table.h"

#define MAX_DIRS 256

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv eval RUN_DIR... --out RESULTS.jsonl [--summary FILE] [--device cpu|cuda]\n"
            "                [--size full|small] [--seed N] [--timeout S] [--problems SEL]\n\n"
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
            "  --summary FILE     the summary JSON (default: RESULTS.jsonl.summary.json)\n"
            "  --device cpu|cuda  where to run (default: cuda when a GPU is usable). A CPU run\n"
            "                     takes the .c files and skips .cu files, a GPU run the reverse\n"
            "  --size full|small  the catalog's shapes or the small CI shapes (default: full\n"
            "                     on a GPU, small on the CPU)\n"
            "  --seed N           the run seed (0 .. 2^53-1); default: a fresh secret seed,\n"
            "                     recorded in every record\n"
            "  --timeout S        deadline of each request to a candidate, seconds (default 60)\n"
            "  --problems SEL     only these problems, e.g. L1/1-32 or L1/19,L1/23\n"
            "  --help             this text\n\n"
            "Exit status: 0 when every candidate was evaluated (whatever the verdicts), 1 when\n"
            "some could not be (the reasons are on stderr; rerun to retry them), 2 on bad usage.\n");
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

int kbv_cmd_eval(int argc, char **argv)
{
    const char *dirs[MAX_DIRS];
    int n_dirs = 0;
    const char *out = NULL, *summary = NULL, *device = NULL, *size = NULL, *seed_s = NULL;
    const char *problems = NULL;
    double timeout = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--out") && a + 1 < argc) {
            out = argv[++a];
        } else if (!strcmp(arg, "--summary") && a + 1 < argc) {
            summary = argv[++a];
        } else if (!strcmp(arg, "--device") && a + 1 < argc) {
            device = argv[++a];
        } else if (!strcmp(arg, "--size") && a + 1 < argc) {
            size = argv[++a];
        } else if (!strcmp(arg, "--seed") && a + 1 < argc) {
            seed_s = argv[++a];
        } else if (!strcmp(arg, "--problems") && a + 1 < argc) {
            problems = argv[++a];
        } else if (!strcmp(arg, "--timeout") && a + 1 < argc) {
            char *end = NULL;
            errno = 0;
            timeout = strtod(argv[++a], &end);
            if (errno || *end || !(timeout > 0)) {
                fprintf(stderr, "kbv eval: --timeout needs a positive number of seconds, got "
                                "'%s'\n", argv[a]);
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
    if (device && strcmp(device, "cpu") && strcmp(device, "cuda")) {
        fprintf(stderr, "kbv eval: --device must be cpu or cuda, got '%s'\n", device);
        return 2;
    }
    if (size && strcmp(size, "full") && strcmp(size, "small")) {
        fprintf(stderr, "kbv eval: --size must be full or small, got '%s'\n", size);
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
    char summary_buf[1100];
    if (!summary) {
        snprintf(summary_buf, sizeof summary_buf, "%s.summary.json", out);
        summary = summary_buf;
    }

    int status = 1, failed = 0, evaluated = 0, resumed = 0;
    kbv_runset rs;
    memset(&rs, 0, sizeof rs);
    kbv_results res;
    bool res_open = false, cache_open = false;
    kbv_baseline_cache cache;
    kbv_evaluator *ev = NULL;
    kbv_record *rec = malloc(sizeof *rec);
    if (!rec) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return 1;
    }
    if (kbv_eval_opts_resolve(device, size, &opts) != KBV_OK) {
        print_error("choosing the device");
        goto done;
    }
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
    if (kbv_evaluator_create(&opts, &ev) != KBV_OK) {
        print_error("creating the backends");
        goto done;
    }
    if (kbv_baseline_cache_open(ev->device_name, &cache) != KBV_OK) {
        print_error("opening the baseline cache");
        goto done;
    }
    cache_open = true;
    int total = 0;
    for (int j = 0; j < rs.n; j++)
        total += !problems ||
                 kbv_problem_set_contains(&selection, rs.jobs[j].level, rs.jobs[j].problem_id);
    fprintf(stderr, "kbv eval: %d candidate%s, device %s, size %s\n", total,
            total == 1 ? "" : "s", ev->device_name, kbv_size_name(opts.size));

    for (int j = 0; j < rs.n; j++) {
        const kbv_job *job = &rs.jobs[j];
        if (problems && !kbv_problem_set_contains(&selection, job->level, job->problem_id))
            continue;
        char key[32];
        snprintf(key, sizeof key, "L%d/%d", job->level, job->problem_id);
        const kbv_problem_def *def = kbv_problem_find(key);
        if (!def) {
            fprintf(stderr, "kbv eval: skipping %s: there is no problem %s\n", job->path, key);
            continue;
        }
        kbv_record_init(rec);
        snprintf(rec->model, sizeof rec->model, "%s", job->model);
        snprintf(rec->file, sizeof rec->file, "%s", job->path);
        snprintf(rec->problem, sizeof rec->problem, "%s", key);
        rec->sample = job->sample;
        snprintf(rec->device, sizeof rec->device, "%s", ev->device_name);
        snprintf(rec->size, sizeof rec->size, "%s", kbv_size_name(opts.size));
        if (kbv_file_sha256(job->path, rec->source_sha256) != KBV_OK) {
            print_error(job->path);
            failed++;
            continue;
        }
        kbv_problem_key(def, rec->problem, sizeof rec->problem);
        if (kbv_results_has(&res, rec)) {
            resumed++;
            continue;
        }
        double t0 = now_s();
        if (kbv_sample_evaluate(ev, &cache, def, job->path, rec, NULL) != KBV_OK) {
            char what[1200];
            snprintf(what, sizeof what, "could not evaluate %s", job->path);
            print_error(what);
            failed++;
            continue;
        }
        if (kbv_results_append(&res, rec) != KBV_OK) {
            print_error("writing the results");
            goto done;   /* nothing can be recorded: stop, what was written stays */
        }
        evaluated++;
        progress_line(evaluated + resumed + failed, total, rec, now_s() - t0);
    }
    if (resumed)
        fprintf(stderr, "kbv eval: %d sample%s already in %s (resumed)\n", resumed,
                resumed == 1 ? "" : "s", out);
    fprintf(stderr, "kbv eval: %d evaluated, %d could not be evaluated\n", evaluated, failed);
    status = report(out, summary, ev->device_name, kbv_size_name(opts.size));
    if (failed)
        status = 1;
done:
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    if (res_open)
        kbv_results_close(&res);
    kbv_runset_free(&rs);
    free(rec);
    return status;
}
