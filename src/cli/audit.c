/* kbv audit: which problems are degenerate (constant output, or an input that
 * does not matter), which are weak (trivial outputs pass the paper's
 * allclose gate), and whether the tf32 baseline itself passes every
 * protocol's correctness gate: the standard/verified allclose gate against
 * the fp32 baseline, and the strict gate against the float64 oracle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/run_options.h"
#include "core/clock.h"
#include "eval/audit.h"
#include "eval/protocol.h"
#include "eval/runset.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv audit [--problems SEL] [--device cpu|cuda] [--size full|small]\n"
            "                 [--seeds N] [--json]\n\n"
            "For every problem, draws the inputs under the base generator, its hidden configs\n"
            "(D1-D4 and extras such as L1/100's H5) and D5-D8 with N seeds each (default 3)\n"
            "and runs the float64 oracle. A problem is degenerate when\n"
            "its output is the same constant on every draw, or does not change when one input\n"
            "alone is redrawn (that input is listed) -- numerically: no element moves by more\n"
            "than 1e-9 x max(1, the output's largest magnitude), float64 rounding, so a mean of\n"
            "a group norm (0 up to ~1e-17) is constant; such problems belong out of aggregates,\n"
            "as the paper excluded L2/23, L2/80 and L2/83. It also reports whether an all-zero\n"
            "output or a copy of the first input passes allclose (1e-3, 1e-2 for fp16\n"
            "outputs) against the fp32 baseline on every base draw (a weak test).\n"
            "Finally it judges the tf32 baseline exactly as the protocols judge a candidate:\n"
            "the standard/verified gate (allclose against the fp32 baseline) on the base and\n"
            "D1-D4 draws, and the strict gate (class rules and error budget against the\n"
            "float64 oracle, D5 with its parameters redrawn) on every draw. A gate the tf32\n"
            "baseline fails is unfair to TF32 kernels: the column lists the failing gate,\n"
            "its counts and the first failing draw's reason. On the CPU backend tf32 is\n"
            "plain float32, so this is meaningful on a GPU only.\n"
            "The dropped column lists the hidden configs the protocols leave out at this\n"
            "size: omitted by the problem's definition as the paper's hidden tests omit them,\n"
            "or found with an fp32 reference that is not finite on a check draw (then they\n"
            "are dropped, as the paper's generator dropped them); an omitted config whose\n"
            "reference is finite here is marked '(finite here)'.\n\n"
            "  --problems SEL   e.g. L1/1-100 or L1/19,L1/23 (default: all)\n"
            "  --device, --size as for kbv eval (default size: small on the CPU)\n"
            "  --seeds N        seeds per distribution, 1..20 (default 3)\n"
            "  --json           one JSON object per problem on stdout instead of the table,\n"
            "                   with the seconds each took\n\n"
            "Exit status: 0 when every problem was audited (whatever it found: a gate the\n"
            "tf32 baseline fails is a finding, not an error), 1 when some could not be, 2 on\n"
            "bad usage.\n");
}

/* Room for the "tf32 vs gates" cell; a longer first reason is cut with "...". */
#define GATES_CELL_MAX 160

/* "std ok (15)", or "std FAIL 3/15" with ", 2 skipped" when some were. */
static void gate_counts(const char *name, const kbv_audit_gate *gate, char *buf, size_t cap)
{
    char skipped[32] = "";
    if (gate->skipped > 0)
        snprintf(skipped, sizeof skipped, ", %d skipped", gate->skipped);
    if (gate->failed > 0)
        snprintf(buf, cap, "%s FAIL %d/%d%s", name, gate->failed, gate->judged, skipped);
    else
        snprintf(buf, cap, "%s ok (%d%s)", name, gate->judged, skipped);
}

/* The tf32 baseline against both gates: "ok (15 std, 27 strict draws)", or
 * the counts of each gate and the first failing draw's reason (the standard
 * gate's when both fail; --json has both). */
static void gates_cell(const kbv_audit_result *r, char *buf, size_t cap)
{
    const kbv_audit_gate *std = &r->tf32_standard, *strict = &r->tf32_strict;
    if (std->failed == 0 && strict->failed == 0) {
        char skipped[48] = "";
        if (std->skipped > 0)
            snprintf(skipped, sizeof skipped, "; %d std skipped", std->skipped);
        snprintf(buf, cap, "ok (%d std, %d strict draws%s)", std->judged, strict->judged,
                 skipped);
        return;
    }
    char a[64], b[64];
    gate_counts("std", std, a, sizeof a);
    gate_counts("strict", strict, b, sizeof b);
    const char *first = std->failed > 0 ? std->first_failure : strict->first_failure;
    int n = snprintf(buf, cap, "%s, %s: %s", a, b, first);
    if (n >= (int)cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

static void print_json(const char *key, const kbv_problem *def, const kbv_audit_result *r,
                       double seconds)
{
    const kbv_audit_gate *std = &r->tf32_standard, *strict = &r->tf32_strict;
    json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:[], s:b, s:b, s:i, s:f}", "problem", key,
                          "name", def->name, "degenerate", kbv_audit_degenerate(r), "constant",
                          r->constant, "ignores", "zeros_pass", r->zeros_pass, "copy_pass",
                          r->copy_pass, "draws", r->draws, "tf32_max_diff", r->tf32_max_diff);
    for (int i = 0; o && i < r->n_ignored && i < KBV_AUDIT_NAMED_IGNORED; i++)
        json_array_append_new(json_object_get(o, "ignores"), json_string(r->ignored[i]));
    if (o) {
        json_object_set_new(o, "tf32_standard_judged", json_integer(std->judged));
        json_object_set_new(o, "tf32_standard_failed", json_integer(std->failed));
        json_object_set_new(o, "tf32_standard_skipped", json_integer(std->skipped));
        json_object_set_new(o, "tf32_standard_first_failure",
                            std->failed ? json_string(std->first_failure) : json_null());
        json_object_set_new(o, "tf32_strict_judged", json_integer(strict->judged));
        json_object_set_new(o, "tf32_strict_failed", json_integer(strict->failed));
        json_object_set_new(o, "tf32_strict_first_failure",
                            strict->failed ? json_string(strict->first_failure) : json_null());
        json_t *dropped = json_array(), *finite = json_array();
        for (int i = 0; dropped && i < r->n_dropped; i++)
            json_array_append_new(dropped, json_pack("{s:s, s:s}", "config",
                                                     r->dropped[i].label, "reason",
                                                     r->dropped[i].reason));
        for (int i = 0; finite && i < r->n_omit_finite; i++)
            json_array_append_new(finite, json_string(r->omit_finite[i]));
        json_object_set_new(o, "configs_dropped", dropped);
        json_object_set_new(o, "omitted_but_finite", finite);
        json_object_set_new(o, "seconds", json_real(seconds));
    }
    char *line = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (line)
        printf("%s\n", line);
    free(line);
    json_decref(o);
}

/* "D4", "D2 (finite here)", "-". */
static void dropped_cell(const kbv_audit_result *r, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n_dropped && n < cap; i++) {
        bool finite = false;
        for (int j = 0; j < r->n_omit_finite; j++)
            finite |= !strcmp(r->omit_finite[j], r->dropped[i].label);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", i ? "," : "", r->dropped[i].label,
                              finite ? " (finite here)" : "");
    }
    if (!buf[0])
        snprintf(buf, cap, "-");
}

static void print_row(const char *key, const kbv_problem *def, const kbv_audit_result *r)
{
    char ign[128] = "-", triv[32] = "-", gates[GATES_CELL_MAX], dropped[64];
    dropped_cell(r, dropped, sizeof dropped);
    for (int i = 0; i < r->n_ignored && i < KBV_AUDIT_NAMED_IGNORED; i++) {
        size_t n = strlen(ign);
        snprintf(ign + (i ? n : 0), sizeof ign - (i ? n : 0), "%s%s", i ? "," : "",
                 r->ignored[i]);
    }
    if (r->zeros_pass || r->copy_pass)
        snprintf(triv, sizeof triv, "%s%s%s", r->zeros_pass ? "zeros" : "",
                 r->zeros_pass && r->copy_pass ? "," : "", r->copy_pass ? "copy" : "");
    gates_cell(r, gates, sizeof gates);
    bool deg = kbv_audit_degenerate(r);
    printf("%-8s %-34.34s %-10s %-22.22s %-12s %-8s %s\n", key, def->name,
           deg ? (r->constant ? "CONSTANT" : "DEGENERATE") : "ok", ign, triv, dropped, gates);
}

int kbv_cmd_audit(int argc, char **argv)
{
    const char *problems = NULL;
    kbv_run_options ro = {0};
    int seeds = 3, taken;
    bool json = false;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--json")) {
            json = true;
        } else if ((taken = kbv_run_option_take("kbv audit", argc, argv, &a, false, &ro)) != 0) {
            if (taken < 0)
                return 2;
        } else if (!strcmp(arg, "--problems") && a + 1 < argc) {
            problems = argv[++a];
        } else if (!strcmp(arg, "--seeds") && a + 1 < argc) {
            char *end = NULL;
            long n = strtol(argv[++a], &end, 10);
            if (*end || n < 1 || n > 20) {
                fprintf(stderr, "kbv audit: --seeds needs 1..20, got '%s'\n", argv[a]);
                return 2;
            }
            seeds = (int)n;
        } else {
            fprintf(stderr, "kbv audit: unknown or incomplete option '%s' (see kbv audit "
                            "--help)\n", arg);
            return 2;
        }
    }
    if (kbv_run_options_check("kbv audit", &ro))
        return 2;
    if (ro.precision != KBV_PRECISION_FP32) {
        fprintf(stderr, "kbv audit: --precision: the audit judges the float32 modes' tf32 "
                        "baseline; it has no bf16 audit\n");
        return 2;
    }
    kbv_problem_set sel;
    if (problems && kbv_problem_set_parse(problems, &sel) != KBV_OK) {
        kbv_cli_error("kbv audit", NULL);
        return 2;
    }

    int status = 1, failed = 0, shown = 0, degenerate = 0, weak = 0;
    int tf32_fails_standard = 0, tf32_fails_strict = 0;
    kbv_eval_opts opts = {0};
    kbv_evaluator *ev = NULL;
    kbv_graph *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "kbv audit: out of memory\n");
        return 1;
    }
    if (kbv_eval_opts_resolve(ro.device, ro.size, &opts) != KBV_OK ||
        kbv_evaluator_create(&opts, &ev) != KBV_OK) {
        kbv_cli_error("kbv audit", NULL);
        goto done;
    }
    if (!json)
        printf("audit on %s, size %s, %d seed%s x (base, hidden configs, D5-D8)\n%-8s %-34s "
               "%-10s %-22s %-12s %-8s %s\n", ev->device_name, kbv_size_name(opts.size), seeds,
               seeds == 1 ? "" : "s", "problem", "name", "verdict", "ignores", "trivial-pass",
               "dropped", "tf32 vs gates");
    const double started = kbv_monotonic_s();
    for (int p = 0; p < kbv_problem_count(); p++) {
        const kbv_problem *def = kbv_problem_at(p);
        if (problems && !kbv_problem_set_contains(&sel, def->level, def->id))
            continue;
        char key[32];
        kbv_problem_key(def, key, sizeof key);
        kbv_audit_result r;
        const double t0 = kbv_monotonic_s();
        if (kbv_graph_build(def, opts.size, g) != KBV_OK ||
            kbv_audit_problem(ev->be, g, seeds, &r) != KBV_OK) {
            kbv_cli_error("kbv audit", key);
            failed++;
            continue;
        }
        shown++;
        degenerate += kbv_audit_degenerate(&r);
        weak += r.zeros_pass || r.copy_pass;
        tf32_fails_standard += r.tf32_standard.failed > 0;
        tf32_fails_strict += r.tf32_strict.failed > 0;
        if (json)
            print_json(key, def, &r, kbv_monotonic_s() - t0);
        else
            print_row(key, def, &r);
        fflush(stdout);
    }
    if (shown == 0 && failed == 0) {
        fprintf(stderr, "kbv audit: no problem matches '%s'\n", problems ? problems : "");
        goto done;
    }
    if (!json)
        printf("\n%d problem%s audited: %d degenerate, %d where a trivial output passes the "
               "allclose gate; the tf32 baseline fails the standard gate on %d, the strict "
               "gate on %d (%.0f s)\n", shown, shown == 1 ? "" : "s", degenerate, weak,
               tf32_fails_standard, tf32_fails_strict, kbv_monotonic_s() - started);
    status = failed ? 1 : 0;
done:
    kbv_evaluator_destroy(ev);
    kbv_graph_free(g);
    free(g);
    return status;
}
