/* kbv baseline: measure and cache the baselines on this machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/run_options.h"
#include "eval/baseline.h"
#include "dist/draws.h"
#include "eval/precision.h"
#include "eval/protocol.h"
#include "eval/runset.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv baseline [--problems SEL] [--size full|small] [--device cpu|cuda]\n"
            "                    [--force] [--seed N] [--precision fp32|bf16]\n\n"
            "Runs each problem's graph eagerly, like PyTorch, in the timed precision modes\n"
            "(fp32-strict, fp32, tf32; with --precision bf16 the bf16 mode) and caches the\n"
            "measurements per device in\n"
            "<cache>/baselines/<device>.jsonl, where kbv check and kbv eval find them:\n"
            "  standard timing  3 warm-up runs and at least 100 ms of them, then mean +-\n"
            "                   stddev of 100 timed runs\n"
            "  strict timing    30 trials with fresh inputs and a flushed cache: median [IQR]\n"
            "  peak memory      resident inputs and params plus the allocator's peak growth\n"
            "                   during one forward (as torch.cuda.max_memory_allocated)\n"
            "Cached measurements are reused unless --force. Every entry carries a MAC under\n"
            "the user's key ($KBV_SECRET_FILE, else $XDG_CONFIG_HOME/kbv/secret or\n"
            "~/.config/kbv/secret, made on first use; docs/THREATS.md): one that does not\n"
            "verify (forged, edited, another key, an older kbv) or holds impossible values\n"
            "is counted on stderr and measured again.\n"
            "On a GPU the SM clock is sampled while timing (NVML); a measurement whose\n"
            "lowest sample is under 75%% of the clock's ceiling is taken again after 50 ms,\n"
            "up to 3 times, and SM MHz shows the lowest clock seen (* still throttled).\n"
            "Prints one row per problem and mode. MB = 1e6 bytes.\n\n"
            "  --problems SEL     e.g. L1/1-32, L1/19, L1/1,L1/5 or L1 (default: every problem)\n"
            "  --size full|small  the catalog's shapes or the small CI shapes (default: full\n"
            "                     on a GPU, small on the CPU)\n"
            "  --device cpu|cuda  where to measure (default: cuda when a GPU is usable)\n"
            "  --force            measure again even when cached\n"
            "  --seed N           seed of the inputs drawn (default: a fresh one)\n"
            "  --precision P      fp32 (default: fp32-strict, fp32, tf32) or bf16 (the bf16\n"
            "                     mode: bfloat16 tensors, PyTorch's bf16 eager)\n"
            "  --help             this text\n\n"
            "Exit status: 0 when every baseline was measured or found, 1 otherwise, 2 on bad\n"
            "usage.\n");
}

static void print_row(const char *key, const kbv_baseline *b, bool fresh)
{
    char mean[64], median[64];
    snprintf(mean, sizeof mean, "%.4g +- %.2g", b->std_mean_ms, b->std_sd_ms);
    snprintf(median, sizeof median, "%.4g [%.2g]", b->strict_median_ms, b->strict_iqr_ms);
    char clock[32] = "-";   /* the lowest SM clock seen while timing; * when throttled */
    if (b->std_sm_mhz)
        snprintf(clock, sizeof clock, "%u%s", b->std_sm_mhz < b->strict_sm_mhz || !b->strict_sm_mhz
                                                  ? b->std_sm_mhz : b->strict_sm_mhz,
                 b->std_throttled || b->strict_throttled ? "*" : "");
    printf("%-8s %-12s %24s %24s %10.3f %7s  %s\n", key, kbv_mode_name(b->mode), mean, median,
           b->peak_bytes / 1e6, clock, fresh ? "measured" : "cached");
}

int kbv_cmd_baseline(int argc, char **argv)
{
    const char *problems = NULL;
    kbv_run_options ro = {0};
    bool force = false;
    int taken;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--force")) {
            force = true;
        } else if (!strcmp(arg, "--problems") && a + 1 < argc) {
            problems = argv[++a];
        } else if ((taken = kbv_run_option_take("kbv baseline", argc, argv, &a, false, &ro)) !=
                   0) {
            if (taken < 0)
                return 2;
        } else {
            fprintf(stderr, "kbv baseline: unknown or incomplete option '%s' (see kbv baseline "
                            "--help)\n", arg);
            return 2;
        }
    }
    kbv_problem_set sel;
    if (problems && kbv_problem_set_parse(problems, &sel) != KBV_OK) {
        kbv_cli_error("kbv baseline", NULL);
        return 2;
    }
    if (kbv_run_options_check("kbv baseline", &ro))
        return 2;
    const char *device = ro.device, *size = ro.size, *seed_s = ro.seed;
    kbv_eval_opts opts = {.precision = ro.precision};
    if (seed_s && kbv_seed_parse(seed_s, &opts.run_seed) != KBV_OK) {
        kbv_cli_error("kbv baseline", NULL);
        return 2;
    }

    int status = 1, failed = 0, shown = 0;
    kbv_evaluator *ev = NULL;
    kbv_baseline_cache cache;
    bool cache_open = false;
    kbv_graph *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "kbv baseline: out of memory\n");
        return 1;
    }
    if (kbv_eval_opts_resolve(device, size, &opts) != KBV_OK ||
        (!seed_s && kbv_run_seed_new(&opts.run_seed) != KBV_OK) ||
        kbv_evaluator_create(&opts, &ev) != KBV_OK)
        goto fail;
    if (kbv_baseline_cache_open(ev->device_name, &cache) != KBV_OK)
        goto fail;
    cache_open = true;
    char why[1400];
    if (kbv_baseline_cache_rejections(&cache, why, sizeof why))
        fprintf(stderr, "kbv baseline: %s\n", why);
    const unsigned timed = kbv_precision_modes_get(opts.precision)->timed;
    printf("baselines on %s, size %s (cache %s)\n", ev->device_name, kbv_size_name(opts.size),
           cache.path);
    printf("%-8s %-12s %24s %24s %10s %7s\n", "problem", "mode", "mean ms +- sd",
           "median ms [IQR]", "peak MB", "SM MHz");
    for (int p = 0; p < kbv_problem_count(); p++) {
        const kbv_problem *def = kbv_problem_at(p);
        if (problems && !kbv_problem_set_contains(&sel, def->level, def->id))
            continue;
        char key[32];
        kbv_problem_key(def, key, sizeof key);
        kbv_baseline base[KBV_MODE_COUNT];
        unsigned fresh = 0;
        if (kbv_graph_build(def, opts.size, g) != KBV_OK ||
            kbv_baselines_get(&cache, ev->be, timed, true, g, key, opts.size, opts.run_seed,
                              force, base, &fresh) != KBV_OK) {
            kbv_cli_error("kbv baseline", key);
            failed++;
            continue;
        }
        for (int m = 0; m < KBV_MODE_COUNT; m++)
            if (timed >> m & 1u)
                print_row(key, &base[m], fresh & (1u << m));
        shown++;
        fflush(stdout);
    }
    if (shown == 0 && failed == 0) {
        fprintf(stderr, "kbv baseline: no problem matches '%s'\n", problems ? problems : "");
        goto done;
    }
    status = failed ? 1 : 0;
    goto done;
fail:
    kbv_cli_error("kbv baseline", NULL);
done:
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    kbv_graph_free(g);
    free(g);
    return status;
}
