/* kbv eval: evaluate run directories of candidates into a results file. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/eval_run.h"
#include "cli/run_options.h"
#include "cli/vendor_option.h"
#include "core/clock.h"
#include "core/secret.h"
#include "dist/draws.h"
#include "eval/protocol.h"
#include "eval/workers.h"
#include "mpi/mpi_eval.h"
#include "sandbox/profiles.h"

/* KernelBench-format candidates, as this build treats them. */
#ifdef KBV_HAVE_PYTHON
#define KERNELBENCH_NOTE                                                                   \
    "KernelBench-format candidates (level_L_problem_P_sample_S_kernel.py or .py, a\n"      \
    "Python ModelNew) are evaluated on either device: kbv-runner hosts the interpreter\n"  \
    "and PyTorch, on kbv's own inputs (docs/ABI.md).\n\n"
#else
#define KERNELBENCH_NOTE                                                                   \
    "KernelBench Python candidates (level_L_problem_P_sample_S_kernel.py or .py) are\n"    \
    "counted and not evaluated: this build does not evaluate them (it was built\n"         \
    "without libpython3 and PyTorch).\n\n"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv eval RUN_DIR... --out RESULTS.jsonl [--summary FILE] [--device cpu|cuda]\n"
            "                [--size full|small] [--seed N] [--timeout S] [--problems SEL]\n"
            "                [--protocols LIST] [--shard I/N] [--workers K] [--gpus LIST]\n"
            "                [--gate text|leaderboard] [--precision fp32|bf16]\n"
            "                [--allow-vendor-libs[=LIST]] [--compile-jobs N] [--mpi]\n\n"
            "Each RUN_DIR holds one model's candidates, named level_L_problem_P_sample_S.cu\n"
            "(or .c for the CPU backend); the model name is the directory's basename. Every\n"
            "candidate is compiled and evaluated under the three protocols (standard,\n"
            "verified, strict) and one JSON record per candidate is appended to RESULTS.jsonl\n"
            "(flushed to disk as it is written). A rerun with the same --out resumes: samples\n"
            "already recorded with the same source, size, device, gate and vendor libraries\n"
            "are skipped. Baselines (those the protocols evaluated use, with strict's\n"
            "timing of them only when strict is evaluated) come from this\n"
            "device's baseline cache, where an entry whose MAC does not verify under the\n"
            "user's key (docs/THREATS.md) is not used but measured again. One line per\n"
            "finished sample goes to stderr; at the end a table per model (correct %%,\n"
            "speedup, Fast@1, fallback speedup, memory efficiency, memory-efficient %%, SOL\n"
            "fraction for each protocol) goes to stdout and the same numbers to the\n"
            "summary, followed by this run's pace: per device, the fraction\n"
            "of the wall time it was busy (the candidate's calls, the checks, baselines)\n"
            "and where the rest went by phase, and evaluations per device-hour (summary\n"
            "\"pace\"; docs/REPORTS.md).\n\n"
            "Every file named like a candidate gets its record. A\n"
            "level_L_problem_P_sample_S.failed.json (kbv generate got no code) is a failed\n"
            "sample, and so is a candidate file that cannot be used: empty, binary, over\n"
            "4 MiB, a symbolic link (never followed), not a regular file (a fifo is never\n"
            "opened), unreadable, or gone by the time it is evaluated; it is recorded as not\n"
            "compiled, with the reason. Everything else in a RUN_DIR is counted, named and\n"
            "not evaluated: the other device's candidates, candidates of problems kbv does\n"
            "not have or --problems leaves out, and other files (kbv generate's\n"
            ".response.json, hidden files). A line at the start and one at the end account\n"
            "for every candidate: evaluated, could not be evaluated, resumed, in other\n"
            "shards.\n\n" KERNELBENCH_NOTE
            "  --out FILE         the results file (JSONL), created or resumed (required).\n"
            "                     kbv eval holds it while it runs: another kbv eval or merge\n"
            "                     on the same file is refused. An existing file that is not a\n"
            "                     kbv results file (each line a record, or one cut short by\n"
            "                     a killed run) is refused and left as it is\n"
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
            "  --protocols LIST   only these protocols, e.g. verified or standard,verified\n"
            "                     (default: all); the others' work is skipped and they are\n"
            "                     recorded as not evaluated. A rerun with more protocols\n"
            "                     evaluates the samples again\n");
    kbv_gate_print_help(f);
    fprintf(f,
            "                     A rerun with another gate evaluates the samples again, and\n"
            "                     the summary counts the records of this run's gate\n");
    kbv_precision_print_help(f);
    fprintf(f,
            "                     The same: a rerun in the other precision evaluates the\n"
            "                     samples again, and the summary counts this run's records.\n"
            "                     Reports table a bf16 run's records as 'MODEL @bf16'\n");
    kbv_vendor_option_help_run(f);
    fprintf(f,
            "  --shard I/N        only shard I of N (0 <= I < N): every sample belongs to\n"
            "                     exactly one shard, by a hash of its model, problem and sample\n"
            "                     number. The results go to RESULTS.shard-I-of-N.jsonl instead\n"
            "                     of RESULTS.jsonl (a name without .jsonl gets .shard-I-of-N\n"
            "                     appended), a rerun resumes that shard, and kbv merge joins\n"
            "                     the shards' files. Default: from the launcher's environment,\n"
            "                     the first pair set of SLURM_PROCID/SLURM_NTASKS,\n"
            "                     OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE;\n"
            "                     --shard 0/1 evaluates everything into RESULTS.jsonl\n"
            "  --start-ahead auto|on|off|N  start the next candidate process (process, sandbox,\n"
            "                     CUDA context; for a KernelBench-format candidate also the\n"
            "                     interpreter with torch imported) while the current\n"
            "                     candidate runs, and load the next candidate into it (still\n"
            "                     one fresh process per candidate; one started for the other\n"
            "                     format is kept for that format's next candidate). off: each\n"
            "                     when its candidate needs it. auto (default): on a GPU, not on\n"
            "                     the CPU (there the start takes cores from the candidate being\n"
            "                     evaluated). on keeps 1 started ahead for kbv's ABI (3 when\n"
            "                     strict runs: one for each hidden shape) and 3 for the\n"
            "                     KernelBench format (its torch import takes seconds); N\n"
            "                     (1 to 8): on, with N of each. The verdicts are the same\n"
            "                     either way\n"
            "  --workers K        evaluate in K worker processes, each job handed to the next\n"
            "                     free worker; this process alone writes the results file. On\n"
            "                     the CPU each worker evaluates on the CPU (K workers share the\n"
            "                     cores, so their times are not comparable to a single run's).\n"
            "                     On a GPU run each worker has a GPU of its own: K is at most\n"
            "                     the number of GPUs and the first K of them are used\n"
            "  --gpus LIST        GPU run: the devices to use, one worker each, e.g. 0,1\n"
            "                     (default: every visible GPU; with one, no worker process)\n"
            "  --compile-jobs N   compile ahead: up to N compilers build the candidates of the\n"
            "                     jobs still to come into the compile cache, in job order, at\n"
            "                     a lower CPU priority, while the evaluators work (default: the\n"
            "                     CPUs this process may use; 0: each candidate is compiled\n"
            "                     just before it is evaluated). Records still say how long\n"
            "                     the build took and that the evaluator found it cached\n"
            "  --mpi              run under mpirun or srun: rank 0 plans (with resume) and\n"
            "                     hands the jobs out one at a time to the other ranks as they\n"
            "                     come free, and alone writes RESULTS.jsonl; every other rank\n"
            "                     evaluates on the CPU or on a GPU of its node, picked by its\n"
            "                     local rank. Needs 2 or more ranks; the launcher's variables\n"
            "                     never shard an --mpi run. Not with --shard, --workers, --gpus%s\n"
            "  --help             this text\n\n"
            "Exit status: 0 when every candidate was evaluated or resumed (whatever the\n"
            "verdicts, unusable files included), 1 when some could not be evaluated (kbv's own\n"
            "trouble, such as a results file that cannot be written: the reasons are on\n"
            "stderr; rerun to retry them), when the results file cannot be used (another kbv\n"
            "process holds it, or it is not a kbv results file) or when the run directories\n"
            "hold files but no candidate (the reason is said), 2 on bad usage.\n"
            "docs/SCALING.md describes sharding, workers, compile-ahead, MPI and kbv merge.\n",
            kbv_mpi_available() ? "" : "\n                     (this kbv was built without MPI)");
}

/* A count from lo to hi, nothing else. */
static bool parse_count(const char *s, int lo, int hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

#define MAX_COMPILE_JOBS 4096

/* Fills cfg from the command line. -1: go on; else the exit status. */
static int parse_args(int argc, char **argv, eval_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->compile_jobs = -1;
    const char *shard_s = NULL;
    int taken;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--out") && a + 1 < argc) {
            cfg->out = argv[++a];
        } else if (!strcmp(arg, "--summary") && a + 1 < argc) {
            cfg->summary = argv[++a];
        } else if ((taken = kbv_run_option_take("kbv eval", argc, argv, &a, true, &cfg->ro)) !=
                   0) {
            if (taken < 0)
                return 2;
        } else if (!strcmp(arg, "--problems") && a + 1 < argc) {
            cfg->problems = argv[++a];
        } else if (!strcmp(arg, "--protocols") && a + 1 < argc) {
            if (kbv_protocols_parse("kbv eval", argv[++a], &cfg->protocols))
                return 2;
        } else if ((taken = kbv_gate_option_take("kbv eval", argc, argv, &a, &cfg->gate)) != 0 ||
                   (taken = kbv_vendor_option_take("kbv eval", arg, &cfg->vendor_libs)) != 0) {
            if (taken < 0)
                return 2;
        } else if (!strcmp(arg, "--shard") && a + 1 < argc) {
            shard_s = argv[++a];
        } else if (!strcmp(arg, "--gpus") && a + 1 < argc) {
            cfg->gpus = argv[++a];
        } else if (!strcmp(arg, "--workers") && a + 1 < argc) {
            if (!parse_count(argv[++a], 1, KBV_MAX_WORKERS, &cfg->workers)) {
                fprintf(stderr, "kbv eval: --workers needs a number from 1 to %d, got '%s'\n",
                        KBV_MAX_WORKERS, argv[a]);
                return 2;
            }
        } else if (!strcmp(arg, "--compile-jobs") && a + 1 < argc) {
            if (!parse_count(argv[++a], 0, MAX_COMPILE_JOBS, &cfg->compile_jobs)) {
                fprintf(stderr, "kbv eval: --compile-jobs needs a number from 0 to %d, got "
                                "'%s'\n", MAX_COMPILE_JOBS, argv[a]);
                return 2;
            }
        } else if (!strcmp(arg, "--mpi")) {
            cfg->mpi = true;
        } else if (!strcmp(arg, "--start-ahead") && a + 1 < argc) {
            if (kbv_start_ahead_parse(argv[++a], &cfg->start_ahead, &cfg->start_ahead_depth) !=
                KBV_OK) {
                kbv_cli_error("kbv eval", NULL);
                return 2;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "kbv eval: unknown or incomplete option '%s' (see kbv eval --help)\n",
                    arg);
            return 2;
        } else if (cfg->n_dirs < KBV_EVAL_MAX_DIRS) {
            cfg->dirs[cfg->n_dirs++] = arg;
        } else {
            fprintf(stderr, "kbv eval: more than %d run directories\n", KBV_EVAL_MAX_DIRS);
            return 2;
        }
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (cfg->n_dirs == 0 || !cfg->out) {
        fprintf(stderr, "kbv eval: %s (see kbv eval --help)\n",
                cfg->n_dirs == 0 ? "no run directory given" : "--out RESULTS.jsonl is required");
        return 2;
    }
    if (kbv_run_options_check("kbv eval", &cfg->ro))
        return 2;
    if (cfg->gpus && cfg->ro.device && !strcmp(cfg->ro.device, "cpu")) {
        fprintf(stderr, "kbv eval: --gpus is for GPU runs, not --device cpu (use --workers)\n");
        return 2;
    }
    if (cfg->mpi && (shard_s || cfg->workers || cfg->gpus)) {
        fprintf(stderr, "kbv eval: --mpi hands every sample out to the ranks itself: not with "
                        "%s (start one rank per GPU instead)\n",
                shard_s ? "--shard" : cfg->workers ? "--workers" : "--gpus");
        return 2;
    }
    if (cfg->mpi && !kbv_mpi_available()) {
        fprintf(stderr, "kbv eval: --mpi: this kbv was built without MPI (install Open MPI's "
                        "libopenmpi-dev and rebuild; or use --shard, see docs/SCALING.md)\n");
        return 2;
    }
    if (cfg->problems && kbv_problem_set_parse(cfg->problems, &cfg->selection) != KBV_OK) {
        kbv_cli_error("kbv eval", NULL);
        return 2;
    }
    if (cfg->compile_jobs < 0)
        cfg->compile_jobs = kbv_compile_ahead_default_parallel();
    /* An --mpi run is one whole run: the launcher's variables say nothing
     * about shards there (every rank has them). */
    if (cfg->mpi) {
        cfg->shard = (kbv_shard){.index = 0, .count = 1};
    } else if (kbv_shard_resolve(shard_s, &cfg->shard) != KBV_OK) {
        kbv_cli_error("kbv eval", NULL);
        return 2;
    }
    return -1;
}

/* The results and summary file names, the shard's when sharded. */
static bool name_files(eval_config *cfg, char *out_buf, size_t out_cap, char *summary_buf,
                       size_t summary_cap)
{
    if (kbv_shard_out_path(cfg->out, &cfg->shard, out_buf, out_cap) != KBV_OK) {
        kbv_cli_error("kbv eval", NULL);
        return false;
    }
    cfg->out = out_buf;
    if (!cfg->summary) {
        snprintf(summary_buf, summary_cap, "%s.summary.json", cfg->out);
        cfg->summary = summary_buf;
    }
    return true;
}

/* The workers' callbacks: a worker evaluates position i of the plan it
 * inherited; the parent records what comes back. */
static kbv_status worker_evaluate(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache,
                                  int i, kbv_record *rec)
{
    const eval_run *run = ctx;
    eval_run_reached(run, i);
    eval_run_identity(run, i, rec);
    KBV_TRY(kbv_sample_evaluate(ev, cache, run->plan[i].def, eval_run_path(run, i), rec, NULL));
    return KBV_OK;
}

static kbv_status worker_record(void *ctx, int i, int device, const kbv_record *rec,
                                double seconds)
{
    KBV_TRY(eval_run_received(ctx, i, device, rec, seconds));
    return KBV_OK;
}

static void worker_failed(void *ctx, int i, const char *why)
{
    eval_run_failed(ctx, i, why);
}

static const char *worker_describe(void *ctx, int i)
{
    return eval_run_path(ctx, i);
}

/* Evaluates the plan in this process. */
static int evaluate_here(eval_run *run, kbv_evaluator *ev, kbv_baseline_cache *cache)
{
    kbv_record *rec = malloc(sizeof *rec);
    if (!rec) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return 1;
    }
    int status = 0;
    for (int i = 0; i < run->n_plan; i++) {
        const char *path = eval_run_path(run, i);
        eval_run_reached(run, i);
        eval_run_identity(run, i, rec);
        double t0 = kbv_monotonic_s();
        if (kbv_sample_evaluate(ev, cache, run->plan[i].def, path, rec, NULL) != KBV_OK) {
            char what[1200];
            snprintf(what, sizeof what, "could not evaluate %s", path);
            eval_print_error(what);
            run->failed++;
            continue;
        }
        if (eval_run_done(run, i, ev->opts.device, rec, kbv_monotonic_s() - t0) != KBV_OK) {
            eval_print_error("writing the results");
            status = 1;   /* nothing can be recorded: stop, what was written stays */
            break;
        }
    }
    free(rec);
    return status;
}

/* Evaluates the plan in n_workers worker processes on devices[]. */
static int evaluate_in_workers(eval_run *run, const kbv_eval_opts *opts, int n_workers,
                               const int *devices)
{
    kbv_workers_opts wo = {.n = n_workers < run->n_plan ? n_workers : run->n_plan,
                           .devices = devices, .eval = *opts,
                           .device_name = run->device_name, .results = &run->res};
    wo.eval.device = devices[0];
    kbv_worker_ops ops = {.evaluate = worker_evaluate, .record = worker_record,
                          .failed = worker_failed, .describe = worker_describe, .ctx = run};
    int *order = calloc((size_t)run->n_plan + 1, sizeof *order);
    if (!order) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return 1;
    }
    for (int i = 0; i < run->n_plan; i++)
        order[i] = i;
    kbv_workers_stats stats;
    kbv_status wst = kbv_workers_run(&wo, order, run->n_plan, &ops, &stats);
    free(order);
    if (stats.deaths)
        fprintf(stderr, "kbv eval: %d worker%s died holding a job; %d job%s retried on "
                        "another worker\n", stats.deaths, stats.deaths == 1 ? "" : "s",
                stats.retried, stats.retried == 1 ? " was" : "s were");
    if (wst != KBV_OK) {
        eval_print_error("running the workers");
        return 1;   /* what was written stays; a rerun resumes */
    }
    return 0;
}

/* The run on this node: in this process, or in worker processes. */
static int eval_local(eval_config *cfg)
{
    int status = 1;
    eval_run run;
    eval_run_init(&run);
    bool cache_open = false;
    kbv_baseline_cache cache;
    kbv_evaluator *ev = NULL;
    kbv_device_probe *probe = malloc(sizeof *probe);
    int n_workers = 0, devices[KBV_MAX_WORKERS];
    kbv_eval_opts opts = {.call_timeout_s = cfg->ro.timeout_s, .protocols = cfg->protocols,
                          .start_ahead = cfg->start_ahead,
                          .start_ahead_depth = cfg->start_ahead_depth,
                          .gate = cfg->gate, .precision = cfg->ro.precision,
                          .vendor_libs = cfg->vendor_libs};
    if (!probe) {
        fprintf(stderr, "kbv eval: out of memory\n");
        goto done;
    }
    if (cfg->ro.seed && kbv_seed_parse(cfg->ro.seed, &opts.run_seed) != KBV_OK) {
        kbv_cli_error("kbv eval", NULL);
        status = 2;
        goto done;
    }
    /* The device is found in a child process: this process must not
     * initialise CUDA before it forks the compile-ahead pool and workers. */
    if (kbv_devices_probe(cfg->ro.device, cfg->ro.size, probe) != KBV_OK) {
        eval_print_error("choosing the device");
        goto done;
    }
    opts.device = probe->opts.device;
    opts.size = probe->opts.size;
    const char *device_name = probe->cpu_name;
    const char *arch = NULL;
    if (opts.device < 0 && cfg->gpus) {
        fprintf(stderr, "kbv eval: --gpus: this run is on the CPU (no usable GPU); use "
                        "--workers K\n");
        status = 2;
        goto done;
    }
    if (opts.device < 0) {
        n_workers = cfg->workers;
        for (int i = 0; i < n_workers; i++)
            devices[i] = -1;
    } else {
        int n_list = 0;
        if (cfg->gpus) {
            if (kbv_gpu_list_parse(cfg->gpus, probe->n_gpus, devices, KBV_MAX_WORKERS,
                                   &n_list) != KBV_OK) {
                kbv_cli_error("kbv eval", NULL);
                status = 2;
                goto done;
            }
        } else {
            for (int d = 0; d < probe->n_gpus && d < KBV_MAX_WORKERS; d++)
                devices[n_list++] = d;
        }
        if (n_list == 0) {
            fprintf(stderr, "kbv eval: no GPU visible\n");
            goto done;
        }
        if (cfg->workers > n_list) {
            fprintf(stderr, "kbv eval: --workers %d: a GPU run has one worker per GPU, and %d "
                            "%s available\n", cfg->workers, n_list, n_list == 1 ? "is" : "are");
            status = 2;
            goto done;
        }
        if (cfg->workers)
            n_list = cfg->workers;
        n_workers = cfg->gpus || cfg->workers || n_list > 1 ? n_list : 0;
        device_name = probe->names[devices[0]];
        arch = probe->arch[devices[0]];
        for (int i = 1; i < n_workers; i++)
            if (strcmp(probe->names[devices[i]], device_name)) {
                fprintf(stderr, "kbv eval: GPU %d is '%s' and GPU %d '%s': results are kept "
                                "per device model, so list GPUs of one model with --gpus\n",
                        devices[0], device_name, devices[i], probe->names[devices[i]]);
                goto done;
            }
        if (!n_workers)
            opts.device = devices[0];
    }
    if (cfg->shard.count > 1)
        fprintf(stderr, "kbv eval: shard %d of %d (%s%s; shards are numbered from 0), results "
                        "in %s\n", cfg->shard.index, cfg->shard.count,
                strcmp(cfg->shard.source, "--shard") ? "from " : "", cfg->shard.source,
                cfg->out);
    if (!cfg->ro.seed && kbv_run_seed_new(&opts.run_seed) != KBV_OK) {
        eval_print_error("drawing the run seed");
        goto done;
    }
    if (!eval_run_plan(&run, cfg, opts.device >= 0 ? KBV_CAND_CUDA : KBV_CAND_C, device_name,
                       kbv_size_name(opts.size)))
        goto done;
    char extra[64] = "";
    if (n_workers)
        snprintf(extra, sizeof extra, ", %d worker%s", n_workers, n_workers == 1 ? "" : "s");
    eval_run_announce(&run, cfg, extra);
    /* before any evaluator: the pool is forked from a process without CUDA */
    eval_run_compile_ahead(&run, cfg, arch);

    /* read here, before any worker reads it too: what did not verify is said once */
    if (run.n_plan > 0) {
        if (kbv_baseline_cache_open(device_name, &cache) != KBV_OK) {
            eval_print_error("opening the baseline cache");
            goto done;
        }
        cache_open = true;
        char why[1400];
        if (kbv_baseline_cache_rejections(&cache, why, sizeof why))
            fprintf(stderr, "kbv eval: %s\n", why);
    }
    bool stopped = false;
    /* every device is held from here: its wall time, evaluators' start included */
    if (eval_run_pace_start(&run, cfg, n_workers, devices, opts.device) != KBV_OK) {
        eval_print_error("timing the run");
        goto done;
    }
    if (n_workers) {
        stopped = run.n_plan > 0 && evaluate_in_workers(&run, &opts, n_workers, devices) != 0;
    } else if (run.n_plan > 0) {
        if (kbv_evaluator_create(&opts, &ev) != KBV_OK) {
            eval_print_error("creating the backends");
            goto done;
        }
        if (strcmp(ev->device_name, device_name)) {
            fprintf(stderr, "kbv eval: the device is '%s' now, not '%s' as planned\n",
                    ev->device_name, device_name);
            goto done;
        }
        stopped = evaluate_here(&run, ev, &cache) != 0;
    }
    if (stopped) {
        eval_run_account(&run);   /* what was done, and what a rerun resumes */
        goto done;
    }
    status = eval_run_finish(&run, cfg);
done:
    eval_run_free(&run);
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    free(probe);
    return status;
}

/* What no candidate or compiler may see even where a system tree would
 * show it: the results, the run directories, the key of the baseline cache
 * (the cache and the home are hidden by the sandbox itself). */
static void hide_own_files(const eval_config *cfg)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cfg->out);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    (void)kbv_sandbox_hide_path(slash ? (dir[0] ? dir : "/") : ".");
    for (int d = 0; d < cfg->n_dirs; d++)
        (void)kbv_sandbox_hide_path(cfg->dirs[d]);
    if (kbv_secret_path(dir, sizeof dir) == KBV_OK) {
        if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
            *slash = '\0';
        (void)kbv_sandbox_hide_path(dir);
    }
    kbv_clear_error();
}

int kbv_cmd_eval(int argc, char **argv)
{
    eval_config *cfg = malloc(sizeof *cfg);
    char out_buf[1100], summary_buf[1200];
    int status;
    if (!cfg) {
        fprintf(stderr, "kbv eval: out of memory\n");
        return 1;
    }
    status = parse_args(argc, argv, cfg);
    if (status >= 0)
        goto done;
    if (!name_files(cfg, out_buf, sizeof out_buf, summary_buf, sizeof summary_buf)) {
        status = 2;
        goto done;
    }
    hide_own_files(cfg);
    status = cfg->mpi ? eval_mpi(cfg) : eval_local(cfg);
done:
    free(cfg);
    return status;
}
