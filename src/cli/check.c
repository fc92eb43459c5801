/* kbv check: evaluate one candidate file and print its verdicts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/run_options.h"
#include "cli/vendor_option.h"
#include "core/vendor_libs.h"
#include "dist/draws.h"
#include "eval/precision.h"
#include "eval/protocol.h"
#include "eval/verdict.h"

#ifdef KBV_HAVE_PYTHON
#define KERNELBENCH_CHECK_NOTE " or a KernelBench-format .py file (either device)"
#define KERNELBENCH_CHECK_HELP                                                            \
    "FILE may also be a KernelBench-format .py file (a Python ModelNew), on either\n"      \
    "device (docs/ABI.md).\n\n"
#else
#define KERNELBENCH_CHECK_NOTE " (this build does not evaluate KernelBench-format .py files)"
#define KERNELBENCH_CHECK_HELP ""
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv check PROBLEM FILE [--device cpu|cuda] [--size full|small] [--seed N]\n"
            "                 [--timeout S] [--gate text|leaderboard] [--precision fp32|bf16]\n"
            "                 [--allow-vendor-libs[=LIST]] [--json]\n\n"
            "Compiles FILE (a .cu candidate for the GPU, a .c candidate for the CPU backend),\n"
            "runs it on PROBLEM (e.g. L1/19) and prints, per protocol (standard, verified,\n"
            "strict), the verdict and the reason of a failure, a table of the 13 draws (5 base\n"
            "draws, D1-D8) with errors against their budgets, kernel and baseline times with\n"
            "their noise, speedups and peak memory.\n\n" KERNELBENCH_CHECK_HELP
            "  --device cpu|cuda  where to run (default: cuda when a GPU is usable; .c files\n"
            "                     always run on the CPU backend)\n"
            "  --size full|small  the catalog's shapes or the small CI shapes (default: full\n"
            "                     on a GPU, small on the CPU)\n"
            "  --seed N           the run seed (0 .. 2^53-1); default: a fresh secret seed\n");
    kbv_gate_print_help(f);
    kbv_precision_print_help(f);
    kbv_vendor_option_help_run(f);
    fprintf(f,
            "  --timeout S        deadline of each request to the candidate, seconds (default 60)\n"
            "  --json             print the results record (one JSON object) instead\n"
            "  --help             this text\n\n"
            "FILE is read as kbv eval reads a candidate: a file that is empty, binary, over\n"
            "4 MiB, a symbolic link (never followed) or not a regular file fails every\n"
            "protocol without being compiled.\n\n"
            "Exit status: 0 when the candidate was evaluated (whatever the verdict, a\n"
            "compile error or an unusable file included), 1 when it could not be evaluated,\n"
            "2 on bad usage (FILE does not exist, among others).\n");
}

static const char *ms_text(double ms, char *buf, size_t cap)
{
    if (isfinite(ms))
        snprintf(buf, cap, "%.4g", ms);
    else
        snprintf(buf, cap, "-");
    return buf;
}

static const char *sci(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        return snprintf(buf, cap, "-"), buf;
    if (x == 0)
        return snprintf(buf, cap, "0"), buf;
    return kbv_fmt_sci(x, 1, buf, cap);
}

static const char *mb_text(double bytes, char *buf, size_t cap)
{
    if (isfinite(bytes))
        snprintf(buf, cap, "%.3f", bytes / 1e6);
    else
        snprintf(buf, cap, "-");
    return buf;
}

static void print_report(const kbv_record *rec, const kbv_problem *def,
                         const kbv_baseline base[KBV_MODE_COUNT], bool seed_given)
{
    char a[32], b[32], c[32], d[32], e[32];
    printf("kbv check: %s %s, %s\n", rec->problem, def->name, rec->file);
    char libs[64];
    printf("device %s, size %s, seed %llu%s, verified gate %s, precision %s, vendor libraries "
           "%s\n",
           rec->device, rec->size, (unsigned long long)rec->seed,
           seed_given ? "" : " (fresh; pass --seed to repeat)", kbv_gate_get(rec->gate)->name,
           kbv_precision_get(rec->precision)->name,
           kbv_vendor_format(rec->vendor_libs, libs, sizeof libs));
    if (rec->sandbox[0])
        printf("sandbox: %s\n", rec->sandbox);
    if (!rec->compile.ok) {
        printf("compile: FAILED (every protocol fails)\n%s\n", rec->compile.log);
        return;
    } else {
        printf("compile: ok (%s, %.2f s)\n", rec->compile.cached ? "cached" : "built",
               rec->compile.seconds);
    }

    printf("\nverdicts\n");
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_result *r = &rec->proto[p];
        char draws[48] = "";
        if (r->draws_total)
            snprintf(draws, sizeof draws, "%d/%d draws", r->draws_passed, r->draws_total);
        if (r->draws_skipped)
            snprintf(draws + strlen(draws), sizeof draws - strlen(draws), ", %d skipped",
                     r->draws_skipped);
        printf("  %-9s %-4s  %-22s %s\n", kbv_protocol_name((kbv_protocol)p),
               r->correct ? "PASS" : "FAIL", draws, r->correct ? r->advisory : r->reason);
    }

    if (rec->n_draws) {
        printf("\n  %-7s %-5s %-6s %13s %9s %8s %8s %8s %8s %8s %9s\n", "draw", "std", "strict",
               "allclose-fail", "max|diff|", "rel L2", "budget", "max err", "budget",
               "unjudged", "unwritten");
        for (int i = 0; i < rec->n_draws; i++) {
            const kbv_draw_record *dr = &rec->draws[i];
            const char *std = dr->std_pass < 0 ? "skip" : dr->std_pass ? "pass" : "FAIL";
            printf("  %-7s %-5s %-6s %13lld %9s %8s %8s %8s %8s %8lld %9lld\n", dr->dist, std,
                   dr->strict_pass < 0 ? "-" : dr->strict_pass ? "pass" : "FAIL",
                   (long long)dr->allclose_fail,
                   sci(dr->max_abs_diff, a, sizeof a), sci(dr->rel_l2, b, sizeof b),
                   sci(dr->budget_rel_l2, c, sizeof c), sci(dr->max_err, d, sizeof d),
                   sci(dr->budget_max_err, e, sizeof e), (long long)dr->unjudged,
                   (long long)dr->poison_left);
        }
        const kbv_precision_modes *pm = kbv_precision_modes_get(rec->precision);
        printf("  (std: allclose %s against the %s baseline; strict: against the float64\n"
               "   oracle, budgets 8x the %s baseline's error)\n",
               kbv_precision_get(rec->precision)->float_dtype == KBV_BF16 ? "1e-2" : "1e-3",
               kbv_mode_name(pm->reference), kbv_mode_name(pm->strict));
    }
    for (int i = 0; i < rec->n_dropped; i++)
        printf("  %s not drawn: %s\n", rec->dropped[i].config, rec->dropped[i].reason);

    kbv_mode base_mode[KBV_PROTO_COUNT];
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        base_mode[p] = kbv_precision_baseline(rec->precision, p);
    printf("\n  %-9s %-28s %-30s %s\n", "timing", "kernel (ms)", "baseline (ms)", "speedup");
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_result *r = &rec->proto[p];
        const kbv_baseline *bl = &base[base_mode[p]];
        char kern[128], bas[128], sp[32];
        bool strict = p == KBV_PROTO_STRICT;
        if (isfinite(r->t_kernel_ms))
            snprintf(kern, sizeof kern, strict ? "median %s [IQR %s]" : "mean %s +- %s",
                     ms_text(r->t_kernel_ms, a, sizeof a),
                     ms_text(r->t_kernel_spread_ms, b, sizeof b));
        else
            snprintf(kern, sizeof kern, "not timed");
        if (strict)
            snprintf(bas, sizeof bas, "%s %s [IQR %s]", kbv_mode_name(base_mode[p]),
                     ms_text(bl->strict_median_ms, c, sizeof c),
                     ms_text(bl->strict_iqr_ms, d, sizeof d));
        else
            snprintf(bas, sizeof bas, "%s %s +- %s", kbv_mode_name(base_mode[p]),
                     ms_text(bl->std_mean_ms, c, sizeof c), ms_text(bl->std_sd_ms, d, sizeof d));
        if (isfinite(r->speedup))
            snprintf(sp, sizeof sp, "%.3gx", r->speedup);
        else
            snprintf(sp, sizeof sp, "-");
        printf("  %-9s %-28s %-30s %s\n", kbv_protocol_name((kbv_protocol)p), kern, bas, sp);
    }
    const kbv_proto_result *S = &rec->proto[KBV_PROTO_STRICT];
    const bool bf16 = rec->precision == KBV_PRECISION_BF16;
    if (!bf16) {
        const kbv_baseline *fs = &base[KBV_MODE_FP32_STRICT];
        printf("  fp32-strict baseline: median %s ms [IQR %s]",
               ms_text(fs->strict_median_ms, a, sizeof a),
               ms_text(fs->strict_iqr_ms, b, sizeof b));
        if (isfinite(S->t_kernel_ms) && isfinite(fs->strict_median_ms) && S->t_kernel_ms > 0)
            printf(", strict speedup against it %.3gx", fs->strict_median_ms / S->t_kernel_ms);
        printf("\n");
    }
    if (isfinite(S->sol_fraction))
        printf("  speed-of-light fraction (H200, %s): %.3g\n", bf16 ? "BF16" : "TF32",
               S->sol_fraction);

    const kbv_proto_result *P = rec->proto;
    if (bf16)
        printf("\nmemory (peak MB): kernel %s; baseline bf16 %s\n",
               mb_text(P[0].mem_kernel_bytes, a, sizeof a),
               mb_text(base[KBV_MODE_BF16].peak_bytes, b, sizeof b));
    else
        printf("\nmemory (peak MB): kernel %s; baselines fp32 %s, tf32 %s\n",
               mb_text(P[0].mem_kernel_bytes, a, sizeof a),
               mb_text(base[KBV_MODE_FP32].peak_bytes, b, sizeof b),
               mb_text(base[KBV_MODE_TF32].peak_bytes, c, sizeof c));
    if (S->n_flags) {
        printf("flags:");
        for (int i = 0; i < S->n_flags; i++)
            printf(" %s", S->flags[i]);
        printf("\n");
    }
    if (rec->has_fault)
        printf("fault: %s: %s\n", rec->fault_kind, rec->fault_reason);
    if (rec->output[0])
        printf("the candidate printed:\n%s%s", rec->output,
               rec->output[strlen(rec->output) - 1] == '\n' ? "" : "\n");
}


static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int kbv_cmd_check(int argc, char **argv)
{
    const char *problem = NULL, *file = NULL;
    kbv_run_options ro = {0};
    kbv_gate gate = KBV_GATE_TEXT;
    unsigned vendor_libs = 0;
    bool json = false;
    int taken;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--json")) {
            json = true;
        } else if ((taken = kbv_run_option_take("kbv check", argc, argv, &a, true, &ro)) != 0 ||
                   (taken = kbv_gate_option_take("kbv check", argc, argv, &a, &gate)) != 0 ||
                   (taken = kbv_vendor_option_take("kbv check", arg, &vendor_libs)) != 0) {
            if (taken < 0)
                return 2;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "kbv check: unknown or incomplete option '%s' (see kbv check "
                            "--help)\n", arg);
            return 2;
        } else if (!problem) {
            problem = arg;
        } else if (!file) {
            file = arg;
        } else {
            fprintf(stderr, "kbv check: unexpected argument '%s' (see kbv check --help)\n", arg);
            return 2;
        }
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!problem || !file) {
        fprintf(stderr, "kbv check: give a problem and a candidate file, e.g. kbv check L1/19 "
                        "my_relu.cu (see kbv check --help)\n");
        return 2;
    }
    const kbv_problem *def = kbv_problem_find(problem);
    if (!def) {
        fprintf(stderr, "kbv check: unknown problem '%s' (kbv list shows them)\n", problem);
        return 2;
    }
    bool is_c = ends_with(file, ".c");
    /* a KernelBench-format file runs on either device, where the runner hosts Python */
    bool is_py = false;
#ifdef KBV_HAVE_PYTHON
    is_py = ends_with(file, ".py");
#endif
    if (!is_c && !is_py && !ends_with(file, ".cu")) {
        fprintf(stderr, "kbv check: %s: a candidate is a .cu file (GPU), a .c file (CPU "
                        "backend)%s\n", file,
                KERNELBENCH_CHECK_NOTE);
        return 2;
    }
    const char *device = ro.device, *size = ro.size, *seed_s = ro.seed;
    double timeout = ro.timeout_s;
    if (is_c && device && strcmp(device, "cpu")) {
        fprintf(stderr, "kbv check: %s is a .c candidate: it runs on the CPU backend "
                        "(--device cpu)\n", file);
        return 2;
    }
    if (!is_c && !is_py && device && !strcmp(device, "cpu")) {
        fprintf(stderr, "kbv check: %s is a .cu candidate: it needs --device cuda\n", file);
        return 2;
    }
    if (kbv_run_options_check("kbv check", &ro))
        return 2;
    struct stat sb;
    if (lstat(file, &sb) != 0) {   /* a link, dangling or not, is judged as a candidate */
        fprintf(stderr, "kbv check: %s: %s\n", file, strerror(errno));
        return 2;
    }

    int status = 1;
    kbv_evaluator *ev = NULL;
    kbv_baseline_cache cache;
    bool cache_open = false;
    kbv_record *rec = malloc(sizeof *rec);
    kbv_baseline base[KBV_MODE_COUNT];
    kbv_eval_opts opts = {.call_timeout_s = timeout, .gate = gate, .precision = ro.precision,
                          .vendor_libs = vendor_libs};
    char what[1100];
    if (!rec) {
        fprintf(stderr, "kbv check: out of memory\n");
        return 1;
    }
    if (seed_s) {
        if (kbv_seed_parse(seed_s, &opts.run_seed) != KBV_OK) {
            kbv_cli_error("kbv check", NULL);
            free(rec);
            return 2;
        }
    } else if (kbv_run_seed_new(&opts.run_seed) != KBV_OK) {
        goto fail;
    }
    if (kbv_eval_opts_resolve(is_c ? "cpu" : device ? device : "cuda", size, &opts) != KBV_OK)
        goto fail;
    if (kbv_evaluator_create(&opts, &ev) != KBV_OK)
        goto fail;
    if (kbv_baseline_cache_open(ev->device_name, &cache) != KBV_OK)
        goto fail;
    cache_open = true;
    char why[1400];
    if (kbv_baseline_cache_rejections(&cache, why, sizeof why))
        fprintf(stderr, "kbv check: %s\n", why);
    kbv_record_init(rec);
    snprintf(rec->file, sizeof rec->file, "%s", file);
    if (kbv_sample_evaluate(ev, &cache, def, file, rec, base) != KBV_OK)
        goto fail;
    if (json) {
        json_t *o = NULL;
        if (kbv_record_to_json(rec, &o) != KBV_OK)
            goto fail;
        int bad = json_dumpf(o, stdout, JSON_INDENT(2));
        json_decref(o);
        printf("\n");
        if (bad) {
            kbv_cli_stdout_error("kbv check");
            goto done;
        }
    } else {
        print_report(rec, def, base, seed_s != NULL);
    }
    status = kbv_cli_flush_stdout("kbv check");
    goto done;
fail:
    snprintf(what, sizeof what, "could not evaluate %s", file);
    kbv_cli_error("kbv check", what);
done:
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    free(rec);
    return status;
}
