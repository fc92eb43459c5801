#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_tables.h"

/* IQR of a normal distribution in standard deviations. */
#define IQR_PER_SD 1.349
/* Differences within this many combined standard deviations are noise. */
#define NOISE_SIGMAS 2.0
/* The median absolute deviation of a normal distribution in standard deviations. */
#define SD_PER_MAD 1.4826
/* The trials behind a recorded time (DESIGN section 4): standard and
 * verified time the mean of 100 calls, strict the median of at least 30
 * (the standard error of a median is 1.2533 that of a mean). */
#define MEAN_TRIALS 100
#define MEDIAN_MIN_TRIALS 30
#define MEDIAN_SE_FACTOR 1.2533

static const char *const change_names[KBV_CHANGE_COUNT] = {
    "no change", "faster", "slower", "untimed", "fixed", "broken", "both wrong",
    "only in A", "only in B", "not judged",
};

const char *kbv_change_name(kbv_change c)
{
    return (unsigned)c < KBV_CHANGE_COUNT ? change_names[c] : "?";
}

kbv_change kbv_compare_times(double t_a, double sigma_a, double t_b, double sigma_b,
                             double run_noise, bool *noise_known)
{
    *noise_known = isfinite(run_noise) && run_noise >= 0;
    if (!(t_a > 0 && isfinite(t_a) && t_b > 0 && isfinite(t_b)))
        return KBV_CHANGE_UNTIMED;
    if (t_a == t_b)
        return KBV_CHANGE_SAME;
    if (!*noise_known)
        return KBV_CHANGE_UNJUDGED;
    /* each run's own spread, relative; a spread not recorded adds nothing */
    double ra = isfinite(sigma_a) && sigma_a > 0 ? sigma_a / t_a : 0;
    double rb = isfinite(sigma_b) && sigma_b > 0 ? sigma_b / t_b : 0;
    double noise = NOISE_SIGMAS * sqrt(run_noise * run_noise + ra * ra + rb * rb);
    if (fabs(log(t_a / t_b)) <= noise)
        return KBV_CHANGE_SAME;
    return t_b < t_a ? KBV_CHANGE_FASTER : KBV_CHANGE_SLOWER;
}

/* ---- the run-to-run noise ------------------------------------------------- */

/* One sample's time in one run. */
typedef struct timed {
    const char *model;
    int level, id, sample, proto;
    double log_t;
} timed;

static int cmp_timed(const void *pa, const void *pb)
{
    const timed *a = pa, *b = pb;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    if (a->sample != b->sample)
        return a->sample < b->sample ? -1 : 1;
    return (a->proto > b->proto) - (a->proto < b->proto);
}

static bool same_key(const timed *a, const timed *b)
{
    return a->level == b->level && a->id == b->id && a->sample == b->sample &&
           a->proto == b->proto && !strcmp(a->model, b->model);
}

kbv_status kbv_noise_from_repeats(const char *const *paths, int n_paths, kbv_noise *n)
{
    kbv_status st = KBV_OK;
    memset(n, 0, sizeof *n);
    kbv_report_data *runs = calloc((size_t)(n_paths + 1), sizeof *runs);
    timed *t = NULL;
    int nt = 0, cap = 0;
    if (!runs)
        return kbv_fail(KBV_ERR_NOMEM, "%d noise runs", n_paths);
    const kbv_report_config cfg = {KBV_DENOM_SAMPLED, NULL};
    for (int r = 0; r < n_paths; r++) {
        KBV_TRY_GOTO(kbv_report_data_load(&paths[r], 1, &cfg, &runs[r]), st, done);
        for (int i = 0; i < runs[r].n_samples; i++) {
            const kbv_report_sample *s = &runs[r].samples[i];
            const kbv_report_problem *q = &runs[r].problems[s->problem];
            for (int p = 0; p < KBV_PROTO_COUNT; p++) {
                const kbv_proto_result *pr = &s->rec->proto[p];
                if (!pr->correct || !(pr->t_kernel_ms > 0) || !isfinite(pr->t_kernel_ms))
                    continue;
                if (nt == cap) {
                    cap = cap ? 2 * cap : 1024;
                    timed *g = realloc(t, (size_t)cap * sizeof *t);
                    if (!g)
                        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "noise of %d times", cap);
                    t = g;
                }
                t[nt++] = (timed){s->rec->model, q->level, q->id, s->rec->sample, p,
                                  log(pr->t_kernel_ms)};
            }
        }
    }
    n->n_runs = n_paths;
    qsort(t, (size_t)nt, sizeof *t, cmp_timed);
    n->problems = calloc((size_t)(nt + 1), sizeof *n->problems);
    n->keys = calloc((size_t)(nt + 1), sizeof *n->keys);
    if (!n->problems || !n->keys)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "noise of %d times", nt);
    /* per key its variance across runs (ddof 1); per problem and protocol the
     * mean of its keys' variances; pooled, the mean over every key */
    double pooled_var[KBV_PROTO_COUNT] = {0}, var[KBV_PROTO_COUNT];
    int keys[KBV_PROTO_COUNT];
    for (int i = 0; i < nt;) {
        int level = t[i].level, id = t[i].id;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            var[p] = 0;
            keys[p] = 0;
        }
        while (i < nt && t[i].level == level && t[i].id == id) {
            int j = i + 1;
            while (j < nt && same_key(&t[i], &t[j]))
                j++;
            if (j - i >= 2) {
                double mean = 0, sq = 0;
                for (int k = i; k < j; k++)
                    mean += t[k].log_t;
                mean /= j - i;
                for (int k = i; k < j; k++)
                    sq += (t[k].log_t - mean) * (t[k].log_t - mean);
                int p = t[i].proto;
                var[p] += sq / (j - i - 1);
                keys[p]++;
                pooled_var[p] += sq / (j - i - 1);
                n->n_estimates[p]++;
                /* the sample's own, its protocols side by side */
                int k = n->n_keys - 1;
                if (k < 0 || strcmp(n->keys[k].model, t[i].model) || n->keys[k].level != level ||
                    n->keys[k].id != id || n->keys[k].sample != t[i].sample) {
                    k = n->n_keys++;
                    snprintf(n->keys[k].model, sizeof n->keys[k].model, "%s", t[i].model);
                    n->keys[k].level = level;
                    n->keys[k].id = id;
                    n->keys[k].sample = t[i].sample;
                    for (int q = 0; q < KBV_PROTO_COUNT; q++)
                        n->keys[k].sd[q] = NAN;
                }
                n->keys[k].sd[p] = sqrt(2 * sq / (j - i - 1));
            }
            i = j;
        }
        n->problems[n->n_problems].level = level;
        n->problems[n->n_problems].id = id;
        /* two runs differ by sqrt(2) times one run's sd */
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            n->problems[n->n_problems].sd[p] = keys[p] ? sqrt(2 * var[p] / keys[p]) : NAN;
        n->n_problems++;
    }
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        n->pooled[p] = n->n_estimates[p] ? sqrt(2 * pooled_var[p] / n->n_estimates[p]) : NAN;
        n->source[p] = n->n_estimates[p] ? KBV_NOISE_REPEATS : KBV_NOISE_NONE;
    }
done:
    for (int r = 0; r < n_paths; r++)
        kbv_report_data_free(&runs[r]);
    free(runs);
    free(t);
    if (st != KBV_OK)
        kbv_noise_free(n);
    return st;
}

double kbv_noise_of(const kbv_noise *n, kbv_protocol p, const char *model, int level, int id,
                    int sample)
{
    if (n->source[p] == KBV_NOISE_NONE)
        return NAN;
    if (n->source[p] != KBV_NOISE_REPEATS)
        return n->pooled[p];
    for (int i = 0; model && i < n->n_keys; i++)
        if (n->keys[i].level == level && n->keys[i].id == id && n->keys[i].sample == sample &&
            !strcmp(n->keys[i].model, model) && isfinite(n->keys[i].sd[p]))
            return n->keys[i].sd[p];
    for (int i = 0; i < n->n_problems; i++)
        if (n->problems[i].level == level && n->problems[i].id == id &&
            isfinite(n->problems[i].sd[p]))
            return n->problems[i].sd[p];
    return n->pooled[p];
}

void kbv_noise_free(kbv_noise *n)
{
    free(n->problems);
    free(n->keys);
    memset(n, 0, sizeof *n);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* A problem's baseline of protocol p in a run: any of its records' (the
 * baseline is the problem's, not the sample's); NAN when none. */
static double baseline_of(const kbv_report_data *d, int model, int problem, kbv_protocol p)
{
    const kbv_report_cell *c = kbv_report_cell_of(d, model, problem);
    for (int i = c->first; i < c->first + c->n; i++) {
        double t = d->samples[i].rec->proto[p].t_baseline_ms;
        if (t > 0 && isfinite(t))
            return t;
    }
    return NAN;
}

static int find_problem(const kbv_report_data *d, int level, int id);

/* The noise from A's and B's baselines: identical code in both runs, so what
 * differs between them is the noise (when each measured them anew). */
static kbv_status noise_from_baselines(kbv_comparison *c)
{
    double *x = malloc((size_t)(c->a.n_problems + 1) * sizeof *x);
    if (!x)
        return kbv_fail(KBV_ERR_NOMEM, "noise over %d problems", c->a.n_problems);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        if (c->noise.source[p] != KBV_NOISE_NONE)
            continue;
        int n = 0;
        for (int qa = 0; qa < c->a.n_problems; qa++) {
            const kbv_report_problem *q = &c->a.problems[qa];
            int qb = find_problem(&c->b, q->level, q->id);
            if (qb < 0)
                continue;
            double ta = baseline_of(&c->a, c->model_a, qa, (kbv_protocol)p),
                   tb = baseline_of(&c->b, c->model_b, qb, (kbv_protocol)p);
            /* bit-for-bit equal: one cached measurement, which says nothing */
            if (isfinite(ta) && isfinite(tb) && ta != tb)
                x[n++] = fabs(log(ta / tb));
        }
        if (n < 3)
            continue;
        qsort(x, (size_t)n, sizeof *x, cmp_double);
        double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
        c->noise.pooled[p] = SD_PER_MAD * median;
        c->noise.n_estimates[p] = n;
        c->noise.source[p] = KBV_NOISE_BASELINES;
    }
    free(x);
    return KBV_OK;
}

double kbv_compare_stderr(const kbv_proto_result *r, kbv_protocol p)
{
    double s = kbv_compare_sigma(r, p);
    return p == KBV_PROTO_STRICT ? s * MEDIAN_SE_FACTOR / sqrt(MEDIAN_MIN_TRIALS)
                                 : s / sqrt(MEAN_TRIALS);
}

double kbv_compare_sigma(const kbv_proto_result *r, kbv_protocol p)
{
    double s = r->t_kernel_spread_ms;
    if (!isfinite(s) || s < 0)
        return NAN;
    return p == KBV_PROTO_STRICT ? s / IQR_PER_SD : s;
}

/* ---- building ------------------------------------------------------------ */

static kbv_status pick_model(const kbv_report_data *d, const char *path, const char *want,
                             const char *option, int *out)
{
    if (want) {
        *out = kbv_report_model_index(d, want);
        if (*out < 0)
            return kbv_fail(KBV_ERR_NOT_FOUND, "%s has no records of model '%s'", path, want);
        return KBV_OK;
    }
    if (d->n_models == 1) {
        *out = 0;
        return KBV_OK;
    }
    if (d->n_models == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s holds no records", path);
    char names[512] = "";
    size_t used = 0;
    for (int i = 0; i < d->n_models && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", i ? ", " : "",
                                 d->models[i]);
    return kbv_fail(KBV_ERR_INVALID, "%s holds %d models (%s): choose one with %s", path,
                    d->n_models, names, option);
}

static void fill_side(const kbv_report_data *d, int model, int problem, kbv_protocol p,
                      kbv_compare_side *s)
{
    memset(s, 0, sizeof *s);
    s->t_ms = s->spread_ms = s->sigma_ms = s->stderr_ms = s->speedup = NAN;
    if (problem < 0)
        return;
    const kbv_report_cell *c = kbv_report_cell_of(d, model, problem);
    if (c->n == 0)
        return;
    s->sample = &d->samples[c->shown[p]];
    s->correct = c->best[p] >= 0;
    if (!s->correct)
        return;
    const kbv_proto_result *r = &s->sample->rec->proto[p];
    s->t_ms = r->t_kernel_ms;
    s->spread_ms = r->t_kernel_spread_ms;
    s->sigma_ms = kbv_compare_sigma(r, p);
    s->stderr_ms = kbv_compare_stderr(r, p);
    s->speedup = kbv_report_speedup(r);
}

static int find_problem(const kbv_report_data *d, int level, int id)
{
    for (int i = 0; i < d->n_problems; i++)
        if (d->problems[i].level == level && d->problems[i].id == id)
            return i;
    return -1;
}

kbv_status kbv_compare_build(kbv_comparison *c)
{
    int cap = c->a.n_problems + c->b.n_problems;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        c->rows[p] = calloc((size_t)(cap ? cap : 1), sizeof *c->rows[p]);
        if (!c->rows[p])
            return kbv_fail(KBV_ERR_NOMEM, "comparing %d problems", cap);
    }
    memset(c->counts, 0, sizeof c->counts);
    KBV_TRY(noise_from_baselines(c));
    /* the union of both runs' problems with samples of the chosen models, in order */
    int ia = 0, ib = 0, n = 0;
    while (ia < c->a.n_problems || ib < c->b.n_problems) {
        const kbv_report_problem *pa = ia < c->a.n_problems ? &c->a.problems[ia] : NULL;
        const kbv_report_problem *pb = ib < c->b.n_problems ? &c->b.problems[ib] : NULL;
        const kbv_report_problem *q;
        if (pa && pb && pa->level == pb->level && pa->id == pb->id) {
            q = pa;
            ia++;
            ib++;
        } else if (pa && (!pb || pa->level < pb->level ||
                          (pa->level == pb->level && pa->id < pb->id))) {
            q = pa;
            ia++;
        } else {
            q = pb;
            ib++;
        }
        int qa = find_problem(&c->a, q->level, q->id), qb = find_problem(&c->b, q->level, q->id);
        bool has_a = qa >= 0 && kbv_report_cell_of(&c->a, c->model_a, qa)->n > 0;
        bool has_b = qb >= 0 && kbv_report_cell_of(&c->b, c->model_b, qb)->n > 0;
        if (!has_a && !has_b)
            continue;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            kbv_compare_row *r = &c->rows[p][n];
            r->level = q->level;
            r->id = q->id;
            snprintf(r->key, sizeof r->key, "%s", q->key);
            fill_side(&c->a, c->model_a, has_a ? qa : -1, (kbv_protocol)p, &r->a);
            fill_side(&c->b, c->model_b, has_b ? qb : -1, (kbv_protocol)p, &r->b);
            r->noise_known = true;
            r->noise = NAN;
            if (!has_a)
                r->change = KBV_CHANGE_ONLY_B;
            else if (!has_b)
                r->change = KBV_CHANGE_ONLY_A;
            else if (r->a.correct && r->b.correct) {
                const kbv_record *ra = r->a.sample->rec, *rb = r->b.sample->rec;
                double na = kbv_noise_of(&c->noise, (kbv_protocol)p, ra->model, q->level, q->id,
                                         ra->sample),
                       nb = kbv_noise_of(&c->noise, (kbv_protocol)p, rb->model, q->level, q->id,
                                         rb->sample);
                r->noise = sqrt((na * na + nb * nb) / 2);
                r->change = kbv_compare_times(r->a.t_ms, r->a.stderr_ms, r->b.t_ms,
                                              r->b.stderr_ms, r->noise, &r->noise_known);
            }
            else if (r->b.correct)
                r->change = KBV_CHANGE_FIXED;
            else if (r->a.correct)
                r->change = KBV_CHANGE_BROKEN;
            else
                r->change = KBV_CHANGE_BOTH_WRONG;
            c->counts[p][r->change]++;
        }
        n++;
    }
    c->n_rows = n;
    return KBV_OK;
}

kbv_status kbv_compare_load(const char *path_a, const char *path_b, const char *model_a,
                            const char *model_b, const char *const *noise_paths, int n_noise,
                            kbv_comparison *c)
{
    kbv_status st = KBV_OK;
    memset(c, 0, sizeof *c);
    c->path_a = path_a;
    c->path_b = path_b;
    if (n_noise > 0)
        KBV_TRY_GOTO(kbv_noise_from_repeats(noise_paths, n_noise, &c->noise), st, fail);
    /* per problem with samples: the comparison has no denominator */
    const kbv_report_config cfg = {KBV_DENOM_SAMPLED, NULL};
    KBV_TRY_GOTO(kbv_report_data_load(&path_a, 1, &cfg, &c->a), st, fail);
    KBV_TRY_GOTO(kbv_report_data_load(&path_b, 1, &cfg, &c->b), st, fail);
    KBV_TRY_GOTO(pick_model(&c->a, path_a, model_a, "--model-a", &c->model_a), st, fail);
    KBV_TRY_GOTO(pick_model(&c->b, path_b, model_b, "--model-b", &c->model_b), st, fail);
    KBV_TRY_GOTO(kbv_compare_build(c), st, fail);
    return KBV_OK;
fail:
    kbv_compare_free(c);
    return st;
}

void kbv_compare_free(kbv_comparison *c)
{
    kbv_noise_free(&c->noise);
    kbv_report_data_free(&c->a);
    kbv_report_data_free(&c->b);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        free(c->rows[p]);
    memset(c, 0, sizeof *c);
}

/* ---- writing ------------------------------------------------------------- */

static void verdict_text(const kbv_compare_side *s, kbv_protocol p, char *buf, size_t cap)
{
    if (!s->sample)
        snprintf(buf, cap, "-");
    else if (s->correct)
        snprintf(buf, cap, "correct");
    else
        snprintf(buf, cap, "%s", kbv_fail_kind_name(s->sample->fail[p]));
}

/* "0.512 ms ± 0.004" (sd) or "0.512 ms IQR 0.010" (strict). */
static void time_text(const kbv_compare_side *s, kbv_protocol p, bool ascii, char *buf,
                      size_t cap)
{
    char t[32], sp[32];
    if (!isfinite(s->t_ms)) {
        snprintf(buf, cap, "-");
        return;
    }
    kbv_report_fmt_ms(s->t_ms, t, sizeof t);
    if (!isfinite(s->spread_ms))
        snprintf(buf, cap, "%s (no spread)", t);
    else if (p == KBV_PROTO_STRICT)
        snprintf(buf, cap, "%s IQR %s", t, kbv_report_fmt_ms(s->spread_ms, sp, sizeof sp));
    else
        snprintf(buf, cap, "%s %s %s", t, ascii ? "+-" : "\xC2\xB1",
                 kbv_report_fmt_ms(s->spread_ms, sp, sizeof sp));
}

static void change_text(const kbv_compare_row *r, char *buf, size_t cap)
{
    if ((r->change == KBV_CHANGE_FASTER || r->change == KBV_CHANGE_SLOWER) && r->a.t_ms > 0 &&
        r->b.t_ms > 0)
        snprintf(buf, cap, "B %s %.2fx", r->change == KBV_CHANGE_FASTER ? "faster" : "slower",
                 r->change == KBV_CHANGE_FASTER ? r->a.t_ms / r->b.t_ms : r->b.t_ms / r->a.t_ms);
    else if (r->change == KBV_CHANGE_UNJUDGED)
        snprintf(buf, cap, "B %s %.2fx (run-to-run noise unknown)",
                 r->b.t_ms < r->a.t_ms ? "faster" : "slower",
                 r->b.t_ms < r->a.t_ms ? r->a.t_ms / r->b.t_ms : r->b.t_ms / r->a.t_ms);
    else if (r->change == KBV_CHANGE_SAME)
        snprintf(buf, cap, "no change (within noise)");
    else
        snprintf(buf, cap, "%s", kbv_change_name(r->change));
}

static void noise_line(FILE *f, const kbv_comparison *c, kbv_protocol p, bool md)
{
    const kbv_noise *n = &c->noise;
    switch (n->source[p]) {
    case KBV_NOISE_REPEATS:
        fprintf(f, "%sRun-to-run noise (%s): from %d repeated runs, %d sample times; pooled "
                   "%.1f%% (per problem where the repeats have it).\n", md ? "\n" : "",
                kbv_protocol_name(p), n->n_runs, n->n_estimates[p], 100 * n->pooled[p]);
        break;
    case KBV_NOISE_BASELINES:
        fprintf(f, "%sRun-to-run noise (%s): %.1f%%, from the %d baselines A and B each "
                   "measured anew.\n", md ? "\n" : "", kbv_protocol_name(p), 100 * n->pooled[p],
                n->n_estimates[p]);
        break;
    default:
        fprintf(f, "%sRun-to-run noise (%s): unknown (no --noise runs, and A and B share their "
                   "baselines): differences are shown, not judged.\n", md ? "\n" : "",
                kbv_protocol_name(p));
        break;
    }
}

static void counts_line(FILE *f, const kbv_comparison *c, kbv_protocol p)
{
    static const kbv_change order[] = {KBV_CHANGE_FIXED, KBV_CHANGE_BROKEN, KBV_CHANGE_FASTER,
                                       KBV_CHANGE_SLOWER, KBV_CHANGE_SAME, KBV_CHANGE_UNJUDGED,
                                       KBV_CHANGE_UNTIMED,
                                       KBV_CHANGE_BOTH_WRONG, KBV_CHANGE_ONLY_A,
                                       KBV_CHANGE_ONLY_B};
    fprintf(f, "%d problems:", c->n_rows);
    bool first = true;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int n = c->counts[p][order[i]];
        if (!n)
            continue;
        fprintf(f, "%s %d %s", first ? "" : ",", n, kbv_change_name(order[i]));
        first = false;
    }
    fputs(first ? " none\n" : "\n", f);
}

static void header_lines(FILE *f, const kbv_comparison *c, bool md)
{
    const char *dev_a = c->a.device, *dev_b = c->b.device;
    fprintf(f, "A = %s (model %s%s%s), B = %s (model %s%s%s)\n", c->path_a, md ? "`" : "",
            c->a.models[c->model_a], md ? "`" : "", c->path_b, md ? "`" : "",
            c->b.models[c->model_b], md ? "`" : "");
    fputs(md ? "\n" : "", f);
    fprintf(f, "Chosen sample per problem: the fastest correct one. No change: |log(tA / tB)| "
               "<= 2 sqrt(n^2 + eA^2 + eB^2), n the run-to-run noise, eA and eB the relative "
               "standard error of each run's time.\n");
    if (strcmp(dev_a, dev_b))
        fprintf(f, "%sNote: A ran on %s and B on %s: kernel times are not comparable across "
                   "devices; compare the speedups.\n",
                md ? "\n" : "", dev_a, dev_b);
}

void kbv_compare_print(FILE *f, const kbv_comparison *c, kbv_protocol p)
{
    char va[32], vb[32], ta[64], tb[64], sa[32], sb[32], ch[64];
    fprintf(f, "\nkbv compare, %s protocol (vs %s)\n", kbv_protocol_name(p),
            kbv_report_baseline_name(p));
    header_lines(f, c, false);
    noise_line(f, c, p, false);
    fprintf(f, "\n%-8s %-11s %-11s %-26s %-26s %8s %8s  %s\n", "problem", "A", "B",
            "A t_kernel", "B t_kernel", "A speed", "B speed", "change");
    for (int i = 0; i < c->n_rows; i++) {
        const kbv_compare_row *r = &c->rows[p][i];
        verdict_text(&r->a, p, va, sizeof va);
        verdict_text(&r->b, p, vb, sizeof vb);
        time_text(&r->a, p, true, ta, sizeof ta);
        time_text(&r->b, p, true, tb, sizeof tb);
        change_text(r, ch, sizeof ch);
        fprintf(f, "%-8s %-11s %-11s %-26s %-26s %8s %8s  %s\n", r->key, va, vb, ta, tb,
                kbv_report_fmt_ratio(r->a.speedup, true, sa, sizeof sa),
                kbv_report_fmt_ratio(r->b.speedup, true, sb, sizeof sb), ch);
    }
    fputc('\n', f);
    counts_line(f, c, p);
}

kbv_status kbv_compare_markdown(FILE *f, const kbv_comparison *c)
{
    char va[32], vb[32], ta[64], tb[64], sa[32], sb[32], ch[64];
    fputs("# kbv compare\n\n", f);
    header_lines(f, c, true);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        fprintf(f, "\n## %s (vs %s)\n\n", kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_name((kbv_protocol)p));
        counts_line(f, c, (kbv_protocol)p);
        noise_line(f, c, (kbv_protocol)p, true);
        fputs("\n| problem | A | B | A t_kernel | B t_kernel | A speedup | B speedup | change |\n"
              "|---|---|---|--:|--:|--:|--:|---|\n",
              f);
        for (int i = 0; i < c->n_rows; i++) {
            const kbv_compare_row *r = &c->rows[p][i];
            verdict_text(&r->a, (kbv_protocol)p, va, sizeof va);
            verdict_text(&r->b, (kbv_protocol)p, vb, sizeof vb);
            time_text(&r->a, (kbv_protocol)p, false, ta, sizeof ta);
            time_text(&r->b, (kbv_protocol)p, false, tb, sizeof tb);
            change_text(r, ch, sizeof ch);
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->key, va, vb, ta, tb,
                    kbv_report_fmt_ratio(r->a.speedup, false, sa, sizeof sa),
                    kbv_report_fmt_ratio(r->b.speedup, false, sb, sizeof sb), ch);
        }
    }
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the comparison failed");
    return KBV_OK;
}
