#include "report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double kbv_fast_thresholds[KBV_FAST_COUNT] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

static const char *const denom_names[KBV_DENOM_COUNT] = {"suite", "sampled"};
static const char *const denom_texts[KBV_DENOM_COUNT] = {
    "the suite's problems of each level less the degenerate ones; a problem without a sample, "
    "or whose generation failed, counts as failed (the paper's denominators)",
    "per model, the problems it has samples for, degenerate ones left out"};

const char *kbv_denominator_name(kbv_denominator d)
{
    return (unsigned)d < KBV_DENOM_COUNT ? denom_names[d] : "?";
}

const char *kbv_denominator_text(kbv_denominator d)
{
    return (unsigned)d < KBV_DENOM_COUNT ? denom_texts[d] : "?";
}

kbv_status kbv_denominator_parse(const char *name, kbv_denominator *d)
{
    for (int i = 0; i < KBV_DENOM_COUNT; i++)
        if (!strcmp(name, denom_names[i])) {
            *d = (kbv_denominator)i;
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_INVALID, "unknown denominator '%s' (suite or sampled)", name);
}

/* Records ordered by (model, level, problem, sample, position in the file). */
typedef struct ref {
    const kbv_record *r;
    int level, id, pos;
} ref;

void kbv_record_problem_of(const kbv_record *r, int *level, int *id)
{
    *level = r->level;
    *id = r->problem_id;
    if (*level <= 0 || *id <= 0) {
        int l = 0, i = 0;
        if (sscanf(r->problem, "L%d/%d", &l, &i) == 2) {
            *level = l;
            *id = i;
        }
    }
}

static int cmp_ref(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    int c = kbv_record_table_cmp(a->r, b->r);
    if (c)
        return c;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->r->sample != b->r->sample)
        return a->r->sample < b->r->sample ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static bool same_problem(const ref *a, const ref *b)
{
    return !kbv_record_table_cmp(a->r, b->r) && a->level == b->level && a->id == b->id;
}

static double speedup_of(const kbv_proto_result *p)
{
    if (isfinite(p->speedup))
        return p->speedup;
    if (p->t_kernel_ms > 0 && isfinite(p->t_baseline_ms))
        return p->t_baseline_ms / p->t_kernel_ms;
    return NAN;
}

static const char *const cond_names[KBV_COND_COUNT] = {
    "fp32+standard", "fp32+hidden", "tf32+standard", "tf32+hidden", "tf32+hidden@1e-4"};

const char *kbv_condition_name(kbv_condition c)
{
    return (unsigned)c < KBV_COND_COUNT ? cond_names[c] : "?";
}

/* How one column reads a record: whose verdict, whose baseline, whose time. */
typedef struct view {
    kbv_protocol verdict, baseline, time;
    bool unpromoted;              /* verified at 1e-4: a leaderboard promotion fails */
} view;

static view protocol_view(kbv_protocol p) { return (view){p, p, p, false}; }

static view condition_view(kbv_condition c)
{
    const kbv_protocol S = KBV_PROTO_STANDARD, V = KBV_PROTO_VERIFIED;
    switch (c) {
    case KBV_COND_FP32_STD: return (view){S, S, S, false};
    case KBV_COND_FP32_HIDDEN: return (view){V, S, S, false};
    case KBV_COND_TF32_STD: return (view){S, V, S, false};
    case KBV_COND_TF32_HIDDEN: return (view){V, V, S, false};
    default: return (view){V, V, S, true};
    }
}

/* One record as a view reads it. */
typedef struct reading {
    bool evaluated, correct;
    double t_kernel, speedup, mem_kernel, mem_base, sol;
} reading;

static reading read_record(const kbv_record *r, const view *v)
{
    const kbv_proto_result *pv = &r->proto[v->verdict], *pb = &r->proto[v->baseline],
                           *pt = &r->proto[v->time];
    reading x;
    x.evaluated = !pv->skipped && !pb->skipped && !pt->skipped;
    x.correct = pv->correct && !(v->unpromoted && kbv_proto_has_flag(pv, "leaderboard-promoted"));
    if (v->baseline == v->time) {
        x.t_kernel = pt->t_kernel_ms;
        x.speedup = speedup_of(pt);
    } else {
        x.t_kernel = pt->t_kernel_ms;
        x.speedup = pt->t_kernel_ms > 0 && pb->t_baseline_ms > 0 ? pb->t_baseline_ms / pt->t_kernel_ms
                                                                 : NAN;
    }
    x.mem_kernel = pt->mem_kernel_bytes;
    x.mem_base = pb->mem_baseline_bytes;
    x.sol = pt->sol_fraction;
    return x;
}

/* Running sums of one group and protocol. */
typedef struct acc {
    int problems, correct, fast[KBV_FAST_COUNT], mem_better, mem_worse;
    double log_speed, log_fallback, log_mem, log_sol;
    int n_speed, n_mem, n_sol;
} acc;

/* Adds one problem: its samples are s[0..n-1] (none: failed). In the
 * sampled view a problem none of whose samples evaluated the column is
 * not one of its problems (kbv eval --protocols); in the suite view the
 * caller decides that for the whole group. */
static void acc_problem(acc *a, const ref *s, int n, const view *v, bool always)
{
    reading best = {false, false, NAN, NAN, NAN, NAN, NAN};
    bool found = false, evaluated = false;
    for (int i = 0; i < n; i++) {
        reading x = read_record(s[i].r, v);
        evaluated |= x.evaluated;
        if (!x.correct)
            continue;
        /* The fastest correct sample; an untimed one only when none is timed. */
        if (!found || (x.t_kernel > 0 && !(best.t_kernel <= x.t_kernel))) {
            best = x;
            found = true;
        }
    }
    if (!evaluated && !always)
        return;
    a->problems++;
    if (!found)
        return;
    a->correct++;
    double sp = best.speedup;
    if (sp > 0 && isfinite(sp)) {
        a->log_speed += log(sp);
        a->n_speed++;
        a->log_fallback += log(fmax(1.0, sp));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            if (sp > kbv_fast_thresholds[k])
                a->fast[k]++;
    }
    double mk = best.mem_kernel, mb = best.mem_base;
    if (mk > 0 && mb > 0 && isfinite(mk) && isfinite(mb)) {
        a->log_mem += log(mb / mk);
        a->n_mem++;
        if (mk < mb)
            a->mem_better++;
        if (mk > mb)
            a->mem_worse++;
    }
    if (best.sol > 0 && isfinite(best.sol)) {
        a->log_sol += log(best.sol);
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
    m->mem_increased_pct = a->correct > 0 ? 100.0 * a->mem_worse / a->correct : NAN;
    m->sol_fraction = a->n_sol ? exp(a->log_sol / a->n_sol) : NAN;
}

static void note_excluded(kbv_metrics *m, int level, int id)
{
    char key[16];
    snprintf(key, sizeof key, "L%d/%d", level, id);
    for (int i = 0; i < m->n_excluded; i++)
        if (!strcmp(m->excluded[i], key))
            return;
    if (m->n_excluded < KBV_METRICS_MAX_EXCLUDED)
        snprintf(m->excluded[m->n_excluded++], sizeof m->excluded[0], "%s", key);
}

/* One model's deduplicated samples u[0..n-1] and the suite they are judged over. */
typedef struct model_view {
    const ref *u;
    int n;
    const kbv_suite *suite;
    kbv_denominator denominator;
} model_view;

static bool has_level(const model_view *v, int level)
{
    for (int i = 0; i < v->n; i++)
        if (v->u[i].level == level)
            return true;
    return false;
}

/* Whether a problem of `level` belongs to the group of `group_level` (0: all
 * the model's levels). */
static bool in_group(const model_view *v, int group_level, int level)
{
    return group_level ? level == group_level : has_level(v, level);
}

static bool is_degenerate(const kbv_suite *s, int level, int id)
{
    int k = kbv_suite_find(s, level, id);
    return k >= 0 && s->p[k].degenerate;
}

/* A group's running sums: the best of k, and each sample index alone. */
typedef struct group_acc {
    acc a[KBV_PROTO_COUNT];
    acc c[KBV_COND_COUNT];
    int n_ids;
    int *ids;                     /* the group's sample indices, ascending */
    acc (*per)[KBV_PROTO_COUNT];  /* [n_ids] */
    int *compiled;                /* [n_ids]: problems whose sample ids[k] compiled */
    int compiled_any;             /* problems with a sample that compiled */
} group_acc;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The sample indices of the group's samples. */
static kbv_status collect_ids(const model_view *v, int level, group_acc *ga)
{
    ga->ids = malloc((size_t)(v->n + 1) * sizeof *ga->ids);
    if (!ga->ids)
        return kbv_fail(KBV_ERR_NOMEM, "sample indices");
    for (int i = 0; i < v->n; i++) {
        if (!in_group(v, level, v->u[i].level) || is_degenerate(v->suite, v->u[i].level, v->u[i].id))
            continue;
        bool seen = false;
        for (int k = 0; k < ga->n_ids && !seen; k++)
            seen = ga->ids[k] == v->u[i].r->sample;
        if (!seen)
            ga->ids[ga->n_ids++] = v->u[i].r->sample;
    }
    qsort(ga->ids, (size_t)ga->n_ids, sizeof *ga->ids, cmp_int);
    ga->per = calloc((size_t)(ga->n_ids + 1), sizeof *ga->per);
    ga->compiled = calloc((size_t)(ga->n_ids + 1), sizeof *ga->compiled);
    if (!ga->per || !ga->compiled)
        return kbv_fail(KBV_ERR_NOMEM, "per-sample metrics of %d samples", ga->n_ids);
    return KBV_OK;
}

static void group_acc_free(group_acc *ga)
{
    free(ga->ids);
    free(ga->per);
    free(ga->compiled);
}

/* Adds a problem's samples u[i..j-1] (i == j: none) to the group. */
static void add_problem(kbv_group_metrics *g, group_acc *ga, const ref *u, int i, int j,
                        const bool group_always[KBV_PROTO_COUNT], bool suite_view)
{
    g->n_problems++;
    g->n_sampled += j > i;
    g->n_samples += j - i;
    bool always[KBV_PROTO_COUNT], any_compiled = false;
    for (int c = 0; c < KBV_COND_COUNT; c++) {
        view v = condition_view((kbv_condition)c);
        acc_problem(&ga->c[c], u + i, j - i, &v,
                    group_always[v.verdict] && group_always[v.baseline] && group_always[v.time]);
    }
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        view v = protocol_view((kbv_protocol)p);
        acc_problem(&ga->a[p], u + i, j - i, &v, group_always[p]);
        /* each sample index alone counts the problem when the best of k does */
        always[p] = group_always[p];
        for (int k = i; !suite_view && k < j; k++)
            always[p] |= !u[k].r->proto[p].skipped;
    }
    for (int s = 0; s < ga->n_ids; s++) {
        int k = i;
        while (k < j && u[k].r->sample != ga->ids[s])
            k++;
        bool has = k < j;
        if (has && u[k].r->compile.ok) {
            ga->compiled[s]++;
            any_compiled = true;
        }
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            view v = protocol_view((kbv_protocol)p);
            acc_problem(&ga->per[s][p], u + k, has ? 1 : 0, &v, always[p]);
        }
    }
    ga->compiled_any += any_compiled;
}

static kbv_mean_sd mean_sd(const double *x, int n)
{
    kbv_mean_sd r = {NAN, NAN};
    if (n == 0)
        return r;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    r.mean = sum / n;
    for (int i = 0; i < n; i++)
        sq += (x[i] - r.mean) * (x[i] - r.mean);
    r.sd = sqrt(sq / n);
    return r;
}

/* The mean +- std of the per-sample numbers of protocol p; a sample index
 * whose numbers are undefined (the protocol not evaluated) is left out, one
 * with no correct problem has speedup 0 (the paper's script). */
static void spread_of(const kbv_group_metrics *g, kbv_protocol p, kbv_per_sample *out)
{
    int n = 0, cap = g->n_sample_ids;
    double *v[5 + KBV_FAST_COUNT];
    for (int k = 0; k < 5 + KBV_FAST_COUNT; k++)
        v[k] = malloc((size_t)(cap + 1) * sizeof(double));
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 5 + KBV_FAST_COUNT; k++)
        if (!v[k])
            cap = 0;   /* out of memory: the spreads stay undefined */
    for (int s = 0; s < cap; s++) {
        const kbv_sample_metrics *sm = &g->per_sample[s];
        const kbv_proto_metrics *pm = &sm->p[p];
        if (pm->n_problems == 0)
            continue;
        v[0][n] = sm->compiled_pct;
        v[1][n] = pm->correct_pct;
        v[2][n] = isfinite(pm->speedup) ? pm->speedup : 0;
        v[3][n] = pm->fallback;
        v[4][n] = pm->mem_eff_pct;
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            v[5 + k][n] = pm->fast_pct[k];
        n++;
    }
    out->n = n;
    out->compiled_pct = mean_sd(v[0], n);
    out->correct_pct = mean_sd(v[1], n);
    out->speedup = mean_sd(v[2], n);
    out->fallback = mean_sd(v[3], n);
    out->mem_eff_pct = mean_sd(v[4], n);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        out->fast_pct[k] = mean_sd(v[5 + k], n);
    for (int k = 0; k < 5 + KBV_FAST_COUNT; k++)
        free(v[k]);
}

static kbv_status group_metrics(kbv_metrics *m, const model_view *v, int level,
                                kbv_group_metrics *g)
{
    kbv_status st = KBV_OK;
    const ref *u = v->u;
    memset(g, 0, sizeof *g);
    kbv_record_table_name(u[0].r, g->model, sizeof g->model);
    g->precision = u[0].r->precision;
    g->level = level;
    group_acc ga;
    memset(&ga, 0, sizeof ga);
    KBV_TRY_GOTO(collect_ids(v, level, &ga), st, done);
    bool suite_view = v->denominator == KBV_DENOM_SUITE;
    bool always[KBV_PROTO_COUNT] = {false};
    if (suite_view) {
        /* a protocol is the group's when one of its samples evaluated it;
         * then every problem of the suite counts under it */
        for (int i = 0; i < v->n; i++)
            if (in_group(v, level, u[i].level) && !is_degenerate(v->suite, u[i].level, u[i].id))
                for (int p = 0; p < KBV_PROTO_COUNT; p++)
                    always[p] |= !u[i].r->proto[p].skipped;
        int k = 0;
        for (int q = 0; q < v->suite->n; q++) {
            const kbv_suite_problem *sp = &v->suite->p[q];
            while (k < v->n && (u[k].level < sp->level ||
                                (u[k].level == sp->level && u[k].id < sp->id)))
                k++;
            int j = k;
            while (j < v->n && u[j].level == sp->level && u[j].id == sp->id)
                j++;
            if (in_group(v, level, sp->level)) {
                if (sp->degenerate)
                    note_excluded(m, sp->level, sp->id);
                else
                    add_problem(g, &ga, u, k, j, always, true);
            }
            k = j;
        }
    } else {
        for (int i = 0; i < v->n;) {
            int j = i + 1;
            while (j < v->n && same_problem(&u[i], &u[j]))
                j++;
            if (in_group(v, level, u[i].level)) {
                if (is_degenerate(v->suite, u[i].level, u[i].id))
                    note_excluded(m, u[i].level, u[i].id);
                else
                    add_problem(g, &ga, u, i, j, always, false);
            }
            i = j;
        }
    }
    acc none;
    memset(&none, 0, sizeof none);
    /* in the suite view a protocol no sample evaluated has no problems */
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        acc_finish(suite_view && !always[p] ? &none : &ga.a[p], &g->p[p]);
    /* 1e-4 is recorded only by the leaderboard gate: every record must have it */
    bool leaderboard = true;
    for (int i = 0; i < v->n; i++)
        if (in_group(v, level, u[i].level) && !is_degenerate(v->suite, u[i].level, u[i].id))
            leaderboard &= u[i].r->gate == KBV_GATE_LEADERBOARD;
    for (int c = 0; c < KBV_COND_COUNT; c++) {
        view cv = condition_view((kbv_condition)c);
        bool known = (!suite_view || (always[cv.verdict] && always[cv.time])) &&
                     (c != KBV_COND_TF32_HIDDEN_1E4 || leaderboard);
        acc_finish(known ? &ga.c[c] : &none, &g->cond[c]);
    }
    g->n_compiled = ga.compiled_any;
    g->compiled_pct = g->n_problems ? 100.0 * ga.compiled_any / g->n_problems : NAN;
    g->per_sample = calloc((size_t)(ga.n_ids + 1), sizeof *g->per_sample);
    if (!g->per_sample)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "per-sample metrics");
    g->n_sample_ids = ga.n_ids;
    for (int s = 0; s < ga.n_ids; s++) {
        kbv_sample_metrics *sm = &g->per_sample[s];
        sm->sample = ga.ids[s];
        sm->compiled_pct = g->n_problems ? 100.0 * ga.compiled[s] / g->n_problems : NAN;
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            acc_finish(suite_view && !always[p] ? &none : &ga.per[s][p], &sm->p[p]);
    }
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        spread_of(g, (kbv_protocol)p, &g->spread[p]);
done:
    group_acc_free(&ga);
    return st;
}

static int cmp_key(const void *a, const void *b)
{
    int la, ia, lb, ib;
    sscanf(a, "L%d/%d", &la, &ia);
    sscanf(b, "L%d/%d", &lb, &ib);
    if (la != lb)
        return la < lb ? -1 : 1;
    return (ia > ib) - (ia < ib);
}

kbv_status kbv_metrics_compute_with(const kbv_record *recs, int n, const kbv_metrics_opts *o,
                                    kbv_metrics *m)
{
    kbv_status st = KBV_OK;
    memset(m, 0, sizeof *m);
    m->denominator = o->denominator;
    ref *all = NULL, *u = NULL;
    kbv_suite suite;
    if (o->suite)
        st = kbv_suite_copy(o->suite, &suite);
    else
        st = kbv_suite_default(NULL, &suite);
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    snprintf(m->degenerate_from, sizeof m->degenerate_from, "%s", suite.degenerate_from);
    if (n == 0)
        goto done;
    all = malloc((size_t)n * sizeof *all);
    u = malloc((size_t)n * sizeof *u);
    /* a pooled group per model and one per level: at most 2n */
    m->groups = malloc((size_t)n * 2 * sizeof *m->groups);
    if (!all || !u || !m->groups)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "metrics over %d records", n);
    for (int i = 0; i < n; i++) {
        all[i].r = &recs[i];
        all[i].pos = i;
        kbv_record_problem_of(&recs[i], &all[i].level, &all[i].id);
        /* a problem a record names is one of the suite's */
        KBV_TRY_GOTO(kbv_suite_add(&suite, all[i].level, all[i].id), st, done);
    }
    qsort(all, (size_t)n, sizeof *all, cmp_ref);
    /* keep the last record of each (model, problem, sample) */
    int nu = 0;
    for (int i = 0; i < n; i++) {
        bool superseded = i + 1 < n && same_problem(&all[i], &all[i + 1]) &&
                          all[i].r->sample == all[i + 1].r->sample;
        if (!superseded)
            u[nu++] = all[i];
    }
    for (int i = 0; i < nu;) {
        int j = i + 1;
        while (j < nu && !kbv_record_table_cmp(u[i].r, u[j].r))
            j++;
        model_view v = {u + i, j - i, &suite, o->denominator};
        KBV_TRY_GOTO(group_metrics(m, &v, 0, &m->groups[m->n++]), st, done);
        for (int k = i; k < j; k++)
            if (k == i || u[k].level != u[k - 1].level)
                KBV_TRY_GOTO(group_metrics(m, &v, u[k].level, &m->groups[m->n++]), st, done);
        i = j;
    }
    qsort(m->excluded, (size_t)m->n_excluded, sizeof m->excluded[0], cmp_key);
done:
    free(all);
    free(u);
    kbv_suite_free(&suite);
    if (st != KBV_OK)
        kbv_metrics_free(m);
    return st;
}

kbv_status kbv_metrics_compute(const kbv_record *recs, int n, kbv_metrics *m)
{
    kbv_metrics_opts o = {KBV_DENOM_SAMPLED, NULL};
    return kbv_metrics_compute_with(recs, n, &o, m);
}

void kbv_metrics_free(kbv_metrics *m)
{
    for (int i = 0; m->groups && i < m->n; i++)
        free(m->groups[i].per_sample);
    free(m->groups);
    memset(m, 0, sizeof *m);
}
