#include "report/table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The baseline each protocol's speedup is measured against. */

static const char *fmt_pct(double x, char *buf, size_t cap)
{
    if (isfinite(x))
        snprintf(buf, cap, "%.1f", x);
    else
        snprintf(buf, cap, "-");
    return buf;
}

static const char *fmt_ratio(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else if (x >= 100)
        snprintf(buf, cap, "%.0fx", x);
    else
        snprintf(buf, cap, "%.2fx", x);
    return buf;
}

static const char *fmt_frac(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else if (x >= 0.001)
        snprintf(buf, cap, "%.3f", x);
    else
        snprintf(buf, cap, "%.1e", x);
    return buf;
}

#define BLOCK_COLS "%6s %7s %6s %7s %7s %6s %7s"

void kbv_table_print(FILE *f, const kbv_metrics *m, const kbv_summary_info *info)
{
    fprintf(f, "\nkbv results: %s (%d records; device %s, size %s%s%s%s%s%s%s)\n",
            info->results_path ? info->results_path : "-", info->n_records,
            info->device ? info->device : "-", info->size ? info->size : "-",
            info->gate ? ", verified gate " : "", info->gate ? info->gate : "",
            info->precision ? ", precision " : "", info->precision ? info->precision : "",
            info->vendor_libs ? ", vendor libraries " : "",
            info->vendor_libs ? info->vendor_libs : "");
    fprintf(f, "Problems (--denominator %s): %s; each problem's result is its fastest correct "
               "sample.\n", kbv_denominator_name(m->denominator),
            kbv_denominator_text(m->denominator));
    if (m->n_excluded) {
        fprintf(f, "Excluded as degenerate:");
        for (int i = 0; i < m->n_excluded; i++)
            fprintf(f, " %s", m->excluded[i]);
        fprintf(f, " (%s)\n", m->degenerate_from);
    }
    fprintf(f, "Columns per protocol: correct %%, speedup (geomean over correct), Fast@1 %%, "
               "fallback speedup, memory efficiency, memory-efficient %%, SOL fraction.\n\n");
    /* the baseline of each protocol, of this table's precision ("a / b" when mixed) */
    bool mixed = info->precision && !strcmp(info->precision, "mixed");
    kbv_precision prec = KBV_PRECISION_FP32;
    if (info->precision && !mixed && kbv_precision_parse(info->precision, &prec) != KBV_OK)
        kbv_clear_error();
    char head[KBV_PROTO_COUNT][64];
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        if (mixed)
            snprintf(head[p], sizeof head[p], "%s (vs %s; @bf16 rows %s)",
                     kbv_protocol_name((kbv_protocol)p),
                     kbv_precision_get(KBV_PRECISION_FP32)->baseline[p],
                     kbv_precision_get(KBV_PRECISION_BF16)->baseline[p]);
        else
            snprintf(head[p], sizeof head[p], "%s (vs %s)", kbv_protocol_name((kbv_protocol)p),
                     kbv_precision_get(prec)->baseline[p]);
    }
    fprintf(f, "%-24s %5s %5s", "", "", "");
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, " | %-52s", head[p]);
    fprintf(f, "\n%-24s %5s %5s", "model", "level", "probs");
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, " | " BLOCK_COLS, "corr%", "speedup", "Fast@1", "fallbk", "mem-eff", "mem%",
                "SOL");
    fprintf(f, "\n");
    for (int i = 0; i < m->n; i++) {
        const kbv_group_metrics *g = &m->groups[i];
        /* a level row repeats the pooled row when the model has one level */
        if (g->level != 0) {
            int levels = 0;
            for (int j = 0; j < m->n; j++)
                if (m->groups[j].level != 0 && !strcmp(m->groups[j].model, g->model))
                    levels++;
            if (levels < 2)
                continue;
        }
        char level[8];
        if (g->level)
            snprintf(level, sizeof level, "L%d", g->level);
        else
            snprintf(level, sizeof level, "all");
        fprintf(f, "%-24.24s %5s %5d", g->level ? "" : g->model, level, g->n_problems);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            char a[16], b[16], c[16], d[16], e[16], h[16], s[16];
            fprintf(f, " | " BLOCK_COLS, fmt_pct(pm->correct_pct, a, sizeof a),
                    fmt_ratio(pm->speedup, b, sizeof b),
                    fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], c, sizeof c),
                    fmt_ratio(pm->fallback, d, sizeof d), fmt_ratio(pm->mem_eff, e, sizeof e),
                    fmt_pct(pm->mem_eff_pct, h, sizeof h), fmt_frac(pm->sol_fraction, s, sizeof s));
        }
        fprintf(f, "\n");
    }
    if (m->n == 0)
        fprintf(f, "(no records)\n");
}

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, key, v))
        *bad = 1;
}

static json_t *proto_json(const kbv_proto_metrics *pm, kbv_protocol p, kbv_precision prec,
                          int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "baseline", json_string(kbv_precision_get(prec)->baseline[p]), bad);
    put(o, "problems", json_integer(pm->n_problems), bad);
    put(o, "correct", json_integer(pm->n_correct), bad);
    put(o, "correct_pct", num_or_null(pm->correct_pct), bad);
    put(o, "speedup", num_or_null(pm->speedup), bad);
    json_t *fast = json_object();
    for (int k = 0; fast && k < KBV_FAST_COUNT; k++) {
        char key[16];
        snprintf(key, sizeof key, "%g", kbv_fast_thresholds[k]);
        put(fast, key, num_or_null(pm->fast_pct[k]), bad);
    }
    put(o, "fast_pct", fast, bad);
    put(o, "fallback_speedup", num_or_null(pm->fallback), bad);
    put(o, "mem_efficiency", num_or_null(pm->mem_eff), bad);
    put(o, "mem_efficient_pct", num_or_null(pm->mem_eff_pct), bad);
    put(o, "mem_increased_pct", num_or_null(pm->mem_increased_pct), bad);
    put(o, "sol_fraction", num_or_null(pm->sol_fraction), bad);
    return o;
}

static json_t *mean_sd_json(kbv_mean_sd v, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "mean", num_or_null(v.mean), bad);
    put(o, "sd", num_or_null(v.sd), bad);
    return o;
}

/* The per-sample numbers of protocol p: their mean +- std and each index's. */
static json_t *per_sample_json(const kbv_group_metrics *g, kbv_protocol p, int *bad)
{
    const kbv_per_sample *ps = &g->spread[p];
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "sample_indices", json_integer(ps->n), bad);
    put(o, "compiled_pct", mean_sd_json(ps->compiled_pct, bad), bad);
    put(o, "correct_pct", mean_sd_json(ps->correct_pct, bad), bad);
    put(o, "speedup", mean_sd_json(ps->speedup, bad), bad);
    put(o, "fallback_speedup", mean_sd_json(ps->fallback, bad), bad);
    put(o, "mem_efficient_pct", mean_sd_json(ps->mem_eff_pct, bad), bad);
    json_t *fast = json_object();
    for (int k = 0; fast && k < KBV_FAST_COUNT; k++) {
        char key[16];
        snprintf(key, sizeof key, "%g", kbv_fast_thresholds[k]);
        put(fast, key, mean_sd_json(ps->fast_pct[k], bad), bad);
    }
    put(o, "fast_pct", fast, bad);
    json_t *each = json_array();
    for (int s = 0; each && s < g->n_sample_ids; s++) {
        const kbv_sample_metrics *sm = &g->per_sample[s];
        json_t *so = proto_json(&sm->p[p], p, g->precision, bad);
        if (!so)
            break;
        json_object_del(so, "baseline");
        put(so, "sample", json_integer(sm->sample), bad);
        put(so, "compiled_pct", num_or_null(sm->compiled_pct), bad);
        if (json_array_append_new(each, so))
            *bad = 1;
    }
    put(o, "samples", each, bad);
    return o;
}

kbv_status kbv_summary_json(const kbv_metrics *m, const kbv_summary_info *info, json_t **out)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o)
        return kbv_fail(KBV_ERR_NOMEM, "building the summary");
    put(o, "schema", json_integer(1), &bad);
    put(o, "results", json_string(info->results_path ? info->results_path : ""), &bad);
    put(o, "device", json_string(info->device ? info->device : ""), &bad);
    put(o, "size", json_string(info->size ? info->size : ""), &bad);
    put(o, "verified_gate", info->gate ? json_string(info->gate) : json_null(), &bad);
    put(o, "precision", info->precision ? json_string(info->precision) : json_null(), &bad);
    put(o, "vendor_libs", info->vendor_libs ? json_string(info->vendor_libs) : json_null(), &bad);
    put(o, "records", json_integer(info->n_records), &bad);
    put(o, "denominator", json_string(kbv_denominator_name(m->denominator)), &bad);
    put(o, "problems_are", json_string(kbv_denominator_text(m->denominator)), &bad);
    put(o, "degenerate_from", json_string(m->degenerate_from), &bad);
    json_t *ex = json_array();
    for (int i = 0; ex && i < m->n_excluded; i++)
        if (json_array_append_new(ex, json_string(m->excluded[i])))
            bad = 1;
    put(o, "excluded", ex, &bad);
    json_t *groups = json_array();
    for (int i = 0; groups && i < m->n; i++) {
        const kbv_group_metrics *g = &m->groups[i];
        json_t *gj = json_object();
        if (!gj) {
            bad = 1;
            break;
        }
        put(gj, "model", json_string(g->model), &bad);
        put(gj, "precision", json_string(kbv_precision_get(g->precision)->name), &bad);
        put(gj, "level", g->level ? json_integer(g->level) : json_string("all"), &bad);
        put(gj, "problems", json_integer(g->n_problems), &bad);
        put(gj, "problems_sampled", json_integer(g->n_sampled), &bad);
        put(gj, "samples", json_integer(g->n_samples), &bad);
        put(gj, "compiled", json_integer(g->n_compiled), &bad);
        put(gj, "compiled_pct", num_or_null(g->compiled_pct), &bad);
        json_t *conds = json_object();
        for (int c = 0; conds && c < KBV_COND_COUNT; c++) {
            /* a condition's baseline is tf32 or fp32 (bf16 in a bf16 run), its protocol
             * columns the verdict's */
            json_t *cj = proto_json(&g->cond[c], c == KBV_COND_FP32_STD || c == KBV_COND_FP32_HIDDEN
                                                     ? KBV_PROTO_STANDARD
                                                     : KBV_PROTO_VERIFIED,
                                    g->precision, &bad);
            put(conds, kbv_condition_name((kbv_condition)c), cj, &bad);
        }
        put(gj, "conditions", conds, &bad);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            json_t *pj = proto_json(&g->p[p], (kbv_protocol)p, g->precision, &bad);
            if (pj)
                put(pj, "per_sample", per_sample_json(g, (kbv_protocol)p, &bad), &bad);
            put(gj, kbv_protocol_name((kbv_protocol)p), pj, &bad);
        }
        if (json_array_append_new(groups, gj))
            bad = 1;
    }
    put(o, "groups", groups, &bad);
    if (info->pace)
        put(o, "pace", json_incref(info->pace), &bad);
    if (bad) {
        json_decref(o);
        return kbv_fail(KBV_ERR_INVALID, "cannot encode the summary as JSON (invalid UTF-8 in a "
                                         "model name?)");
    }
    *out = o;
    return KBV_OK;
}

kbv_status kbv_summary_write(const char *path, const kbv_metrics *m, const kbv_summary_info *info)
{
    kbv_status st = KBV_OK;
    json_t *o = NULL;
    FILE *f = NULL;
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return kbv_fail(KBV_ERR_INVALID, "summary path too long: %s", path);
    KBV_TRY_GOTO(kbv_summary_json(m, info, &o), st, done);
    f = fopen(tmp, "w");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (json_dumpf(o, f, JSON_INDENT(2)) || fputc('\n', f) == EOF || fflush(f) ||
        fsync(fileno(f)))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s: %s", tmp, strerror(errno));
    if (fclose(f)) {
        f = NULL;
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s: %s", tmp, strerror(errno));
    }
    f = NULL;
    if (rename(tmp, path))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
done:
    if (f)
        fclose(f);
    if (st != KBV_OK)
        unlink(tmp);
    json_decref(o);
    return st;
}
