#include "report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double kbv_fast_thresholds[KBV_FAST_COUNT] = {0.0, 0.5, 1.0, 1.5, 2.0};

/* The paper's exclusions (KernelBench-Verified, Level 2), until the
 * automatic degeneracy audit replaces this list. */
static const int degenerate[][2] = {{2, 23}, {2, 80}, {2, 83}};

bool kbv_problem_is_degenerate(int level, int id)
{
    for (size_t i = 0; i < sizeof degenerate / sizeof degenerate[0]; i++)
        if (degenerate[i][0] == level && degenerate[i][1] == id)
            return true;
    return false;
}

/* Records ordered by (model, level, problem, sample, position in the file). */
typedef struct ref {
    const kbv_record *r;
    int pos;
} ref;

static int cmp_ref(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    int c = kbv_record_table_cmp(a->r, b->r);
    if (c)
        return c;
    if (a->r->level != b->r->level)
        return a->r->level < b->r->level ? -1 : 1;
    if (a->r->problem_id != b->r->problem_id)
        return a->r->problem_id < b->r->problem_id ? -1 : 1;
    if (a->r->sample != b->r->sample)
        return a->r->sample < b->r->sample ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static bool same_problem(const kbv_record *a, const kbv_record *b)
{
    return !kbv_record_table_cmp(a, b) && a->level == b->level && a->problem_id == b->problem_id;
}

static double speedup_of(const kbv_proto_result *p)
{
    if (isfinite(p->speedup))
        return p->speedup;
    if (p->t_kernel_ms > 0 && isfinite(p->t_baseline_ms))
        return p->t_baseline_ms / p->t_kernel_ms;
    return NAN;
}

/* Running sums of one group and protocol. */
typedef struct acc {
    int problems, correct, fast[KBV_FAST_COUNT], mem_better;
    double log_speed, log_fallback, log_mem, log_sol;
    int n_speed, n_mem, n_sol;
} acc;

/* Adds one problem: its samples are s[0..n-1]. */
static void acc_problem(acc *a, const ref *s, int n, kbv_protocol p)
{
    const kbv_proto_result *best = NULL;
    bool evaluated = false;
    for (int i = 0; i < n; i++) {
        const kbv_proto_result *r = &s[i].r->proto[p];
        evaluated |= !r->skipped;
        if (!r->correct)
            continue;
        /* The fastest correct sample; an untimed one only when none is timed. */
        if (!best || (r->t_kernel_ms > 0 && !(best->t_kernel_ms <= r->t_kernel_ms)))
            best = r;
    }
    if (!evaluated)
        return;   /* not a problem of this protocol (kbv eval --protocols) */
    a->problems++;
    if (!best)
        return;
    a->correct++;
    double sp = speedup_of(best);
    if (sp > 0 && isfinite(sp)) {
        a->log_speed += log(sp);
        a->n_speed++;
        a->log_fallback += log(fmax(1.0, sp));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            if (sp > kbv_fast_thresholds[k])
                a->fast[k]++;
    }
    double mk = best->mem_kernel_bytes, mb = best->mem_baseline_bytes;
    if (mk > 0 && mb > 0 && isfinite(mk) && isfinite(mb)) {
        a->log_mem += log(mb / mk);
        a->n_mem++;
        if (mk < mb)
            a->mem_better++;
    }
    if (best->sol_fraction > 0 && isfinite(best->sol_fraction)) {
        a->log_sol += log(best->sol_fraction);
        a->n_sol++;
    }
}

static void acc_finish(const acc *a, kbv_proto_metrics *m)
{
    double np = a->problems;
    m->n_problems = a->problems;
    m->n_correct = a->correct;
    m->correct_pct = np > 0 ? 100.0 * a->correct / np : NAN;
    m->speedup = a->n_speed ? exp(a->log_speed / a->n_speed) : NAN;
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        m->fast_pct[k] = np > 0 ? 100.0 * a->fast[k] / np : NAN;
    m->fallback = np > 0 ? exp(a->log_fallback / np) : NAN;
    m->mem_eff = a->n_mem ? exp(a->log_mem / a->n_mem) : NAN;
    m->mem_eff_pct = np > 0 ? 100.0 * a->mem_better / np : NAN;
    m->sol_fraction = a->n_sol ? exp(a->log_sol / a->n_sol) : NAN;
}

static void note_excluded(kbv_metrics *m, const kbv_record *r)
{
    char key[16];
    snprintf(key, sizeof key, "L%d/%d", r->level, r->problem_id);
    for (int i = 0; i < m->n_excluded; i++)
        if (!strcmp(m->excluded[i], key))
            return;
    if (m->n_excluded < KBV_METRICS_MAX_EXCLUDED)
        snprintf(m->excluded[m->n_excluded++], sizeof m->excluded[0], "%s", key);
}

/* One group: the model's deduplicated samples u[0..n-1], at `level` (0: all). */
static void group_metrics(kbv_metrics *m, const ref *u, int n, int level, kbv_group_metrics *g)
{
    memset(g, 0, sizeof *g);
    kbv_record_table_name(u[0].r, g->model, sizeof g->model);
    g->precision = u[0].r->precision;
    g->level = level;
    acc a[KBV_PROTO_COUNT];
    memset(a, 0, sizeof a);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && same_problem(u[i].r, u[j].r))
            j++;
        if (level == 0 || u[i].r->level == level) {
            if (kbv_problem_is_degenerate(u[i].r->level, u[i].r->problem_id)) {
                note_excluded(m, u[i].r);
            } else {
                g->n_problems++;
                g->n_samples += j - i;
                for (int p = 0; p < KBV_PROTO_COUNT; p++)
                    acc_problem(&a[p], u + i, j - i, (kbv_protocol)p);
            }
        }
        i = j;
    }
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        acc_finish(&a[p], &g->p[p]);
}

kbv_status kbv_metrics_compute(const kbv_record *recs, int n, kbv_metrics *m)
{
    kbv_status st = KBV_OK;
    memset(m, 0, sizeof *m);
    ref *all = NULL, *u = NULL;
    if (n == 0)
        return KBV_OK;
    all = malloc((size_t)n * sizeof *all);
    u = malloc((size_t)n * sizeof *u);
    /* a pooled group per model and one per level: at most 2n */
    m->groups = malloc((size_t)n * 2 * sizeof *m->groups);
    if (!all || !u || !m->groups)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "metrics over %d records", n);
    for (int i = 0; i < n; i++) {
        all[i].r = &recs[i];
        all[i].pos = i;
    }
    qsort(all, (size_t)n, sizeof *all, cmp_ref);
    /* keep the last record of each (model, problem, sample) */
    int nu = 0;
    for (int i = 0; i < n; i++) {
        bool superseded = i + 1 < n && same_problem(all[i].r, all[i + 1].r) &&
                          all[i].r->sample == all[i + 1].r->sample;
        if (!superseded)
            u[nu++] = all[i];
    }
    for (int i = 0; i < nu;) {
        int j = i + 1;
        while (j < nu && !kbv_record_table_cmp(u[i].r, u[j].r))
            j++;
        group_metrics(m, u + i, j - i, 0, &m->groups[m->n++]);
        for (int k = i; k < j; k++)
            if (k == i || u[k].r->level != u[k - 1].r->level)
                group_metrics(m, u + i, j - i, u[k].r->level, &m->groups[m->n++]);
        i = j;
    }
done:
    free(all);
    free(u);
    if (st != KBV_OK)
        kbv_metrics_free(m);
    return st;
}

void kbv_metrics_free(kbv_metrics *m)
{
    free(m->groups);
    memset(m, 0, sizeof *m);
}
