#include "report/report_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/vendor_libs.h"

/* ---- failure classes --------------------------------------------------- */

static const char *const kind_names[] = {
    "none", "compile", "load", "returned", "crash", "timeout", "cuda", "harness",
    "wrong@base", "wrong@D1", "wrong@D2", "wrong@D3", "wrong@D4", "wrong@D5", "wrong@D6",
    "wrong@D7", "wrong@D8", "wrong@H", "wrong@timed", "audit", "unjudged", "other",
};
static const char *const kind_texts[] = {
    "correct", "compile error", "load failed", "returned non-zero", "crashed", "timed out",
    "CUDA error", "harness error", "wrong output on base", "wrong output on D1",
    "wrong output on D2", "wrong output on D3", "wrong output on D4", "wrong output on D5",
    "wrong output on D6", "wrong output on D7", "wrong output on D8",
    "wrong output on an extra hidden config", "wrong output on a timed trial", "audit failed",
    "no draw judged", "other",
};
static const char kind_letters[] = {
    ' ', 'C', 'L', 'R', 'X', 'T', 'G', 'H', 'W', 'W', 'W', 'W', 'W', 'W', 'W', 'W', 'W',
    'W', 'W', 'A', 'U', '?',
};
_Static_assert(KBV_FAIL_WRONG_D8 == KBV_FAIL_WRONG_BASE + 8, "base then D1..D8");
_Static_assert(KBV_FAIL_WRONG_EXTRA == KBV_FAIL_WRONG_BASE + KBV_DIST_SLOTS - 1,
               "a wrong-output class per slot");
_Static_assert(sizeof kind_names / sizeof kind_names[0] == KBV_FAIL_COUNT, "a name per class");
_Static_assert(sizeof kind_texts / sizeof kind_texts[0] == KBV_FAIL_COUNT, "a text per class");
_Static_assert(sizeof kind_letters == KBV_FAIL_COUNT, "a letter per class");

const char *kbv_fail_kind_name(kbv_fail_kind k)
{
    return (unsigned)k < KBV_FAIL_COUNT ? kind_names[k] : "?";
}

const char *kbv_fail_kind_text(kbv_fail_kind k)
{
    return (unsigned)k < KBV_FAIL_COUNT ? kind_texts[k] : "?";
}

char kbv_fail_kind_letter(kbv_fail_kind k)
{
    return (unsigned)k < KBV_FAIL_COUNT ? kind_letters[k] : '?';
}

static const char *const slot_names[KBV_DIST_SLOTS] = {"base", "D1", "D2", "D3", "D4",
                                                       "D5",   "D6", "D7", "D8", "H"};

const char *kbv_dist_slot_name(int slot)
{
    return slot >= 0 && slot < KBV_DIST_SLOTS ? slot_names[slot] : "?";
}

int kbv_dist_slot(const char *label)
{
    if (!strncmp(label, "base", 4) && (label[4] == '\0' || label[4] == '#'))
        return 0;
    if (label[0] == 'D' && label[1] >= '1' && label[1] <= '8' && label[2] == '\0')
        return label[1] - '0';
    if (label[0] == 'H' && label[1]) {
        for (const char *c = label + 1; *c; c++)
            if (*c < '0' || *c > '9')
                return -1;
        return KBV_DIST_SLOTS - 1;
    }
    return -1;
}

/* A reason "D3: ..." or "base#2: ...": the draw's slot, and the text after. */
static int reason_draw(const char *reason, const char **rest)
{
    const char *colon = strchr(reason, ':');
    *rest = reason;
    if (!colon || colon - reason >= 8)
        return -1;
    char label[8];
    memcpy(label, reason, (size_t)(colon - reason));
    label[colon - reason] = '\0';
    int slot = kbv_dist_slot(label);
    if (slot >= 0) {
        *rest = colon + 1;
        while (**rest == ' ')
            (*rest)++;
    }
    return slot;
}

static kbv_fail_kind fault_class(const char *kind)
{
    static const struct {
        const char *name;
        kbv_fail_kind k;
    } map[] = {{"load", KBV_FAIL_LOAD},       {"returned", KBV_FAIL_RETURNED},
               {"crash", KBV_FAIL_CRASH},     {"timeout", KBV_FAIL_TIMEOUT},
               {"cuda", KBV_FAIL_CUDA},       {"harness", KBV_FAIL_HARNESS},
               {"compile", KBV_FAIL_COMPILE}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(kind, map[i].name))
            return map[i].k;
    return KBV_FAIL_OTHER;
}

kbv_fail_kind kbv_classify_failure(const kbv_record *r, kbv_protocol p)
{
    const kbv_proto_result *pr = &r->proto[p];
    if (pr->correct || pr->skipped)
        return KBV_FAIL_NONE;   /* a protocol not evaluated did not fail */
    const char *rest;
    int slot = reason_draw(pr->reason, &rest);
    if (r->has_fault) {
        /* a fault relayed as the reason, with or without a draw label */
        bool is_fault = slot < 0 || *rest == '\0' ||
                        (r->fault_reason[0] && strstr(rest, r->fault_reason)) ||
                        (r->fault_kind[0] && !strncmp(rest, r->fault_kind, strlen(r->fault_kind)));
        if (is_fault)
            return fault_class(r->fault_kind);
    }
    if (slot >= 0)
        return (kbv_fail_kind)(KBV_FAIL_WRONG_BASE + slot);
    if (!r->compile.ok || !strncmp(pr->reason, "compile error", 13))
        return KBV_FAIL_COMPILE;
    if (!strncmp(pr->reason, "timed trial", 11))
        return KBV_FAIL_WRONG_TIMED;
    if (!strncmp(pr->reason, "no draw", 7))
        return KBV_FAIL_UNJUDGED;
    if (pr->n_flags > 0 || !strncmp(pr->reason, "timing not credible", 19))
        return KBV_FAIL_AUDIT;
    return KBV_FAIL_OTHER;
}

double kbv_report_speedup(const kbv_proto_result *p)
{
    if (isfinite(p->speedup) && p->speedup > 0)
        return p->speedup;
    if (p->t_kernel_ms > 0 && p->t_baseline_ms > 0 && isfinite(p->t_baseline_ms))
        return p->t_baseline_ms / p->t_kernel_ms;
    return NAN;
}

double kbv_report_mem_ratio(const kbv_proto_result *p)
{
    double mk = p->mem_kernel_bytes, mb = p->mem_baseline_bytes;
    if (mk > 0 && mb > 0 && isfinite(mk) && isfinite(mb))
        return mb / mk;
    return NAN;
}

/* ---- loading ------------------------------------------------------------ */

kbv_status kbv_report_data_load(const char *const *paths, int n_paths,
                                const kbv_report_config *cfg, kbv_report_data *d)
{
    kbv_status st = KBV_OK;
    kbv_record_list one = {0};
    memset(d, 0, sizeof *d);
    for (int i = 0; i < n_paths; i++) {
        struct stat sb;
        /* kbv_records_load reads a missing file as empty (resume); here it is a typo */
        if (stat(paths[i], &sb))
            KBV_FAIL_GOTO(st, fail, errno == ENOENT ? KBV_ERR_NOT_FOUND : KBV_ERR_IO,
                          "cannot read results file %s: %s", paths[i], strerror(errno));
        KBV_TRY_GOTO(kbv_records_load(paths[i], &one), st, fail);
        if (one.malformed && d->malformed == 0)
            snprintf(d->malformed_where, sizeof d->malformed_where, "%s line %d", paths[i],
                     one.first_malformed_line);
        d->malformed += one.malformed;
        if (one.newer && d->newer == 0)
            snprintf(d->newer_where, sizeof d->newer_where, "%s line %d", paths[i],
                     one.first_newer_line);
        d->newer += one.newer;
        if (one.newest_schema > d->newest_schema)
            d->newest_schema = one.newest_schema;
        for (int k = 0; k < one.n; k++)
            KBV_TRY_GOTO(kbv_record_list_push(&d->records, &one.items[k]), st, fail);
        kbv_record_list_free(&one);
    }
    KBV_TRY_GOTO(kbv_report_data_build(d, cfg), st, fail);
    return KBV_OK;
fail:
    kbv_record_list_free(&one);
    kbv_report_data_free(d);
    return st;
}

/* ---- indexes ------------------------------------------------------------ */

typedef struct ordered {
    const kbv_record *r;
    int level, id, pos;
} ordered;

static int cmp_ordered(const void *pa, const void *pb)
{
    const ordered *a = pa, *b = pb;
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

static int cmp_problem(const void *pa, const void *pb)
{
    const kbv_report_problem *a = pa, *b = pb;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int cmp_flag(const void *a, const void *b) { return strcmp(a, b); }

static int problem_index(const kbv_report_data *d, int level, int id)
{
    int lo = 0, hi = d->n_problems - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const kbv_report_problem *p = &d->problems[mid];
        if (p->level == level && p->id == id)
            return mid;
        if (p->level < level || (p->level == level && p->id < id))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int kbv_report_model_index(const kbv_report_data *d, const char *model)
{
    for (int i = 0; i < d->n_models; i++)
        if (!strcmp(d->models[i], model))
            return i;
    return -1;
}

int kbv_report_group_of(const kbv_report_data *d, const char *model, int level)
{
    for (int i = 0; i < d->metrics.n; i++)
        if (d->metrics.groups[i].level == level && !strcmp(d->metrics.groups[i].model, model))
            return i;
    return -1;
}

const kbv_report_cell *kbv_report_cell_of(const kbv_report_data *d, int model, int problem)
{
    return &d->cells[(size_t)model * (size_t)d->n_problems + (size_t)problem];
}

/* The same rule as the metrics: the fastest correct sample, an untimed one
 * only when none is timed; otherwise the failing one that got furthest. */
static void choose(kbv_report_data *d, kbv_report_cell *c)
{
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        int best = -1, shown = -1;
        for (int i = c->first; i < c->first + c->n; i++) {
            const kbv_proto_result *r = &d->samples[i].rec->proto[p];
            if (r->correct) {
                const kbv_proto_result *b = best >= 0 ? &d->samples[best].rec->proto[p] : NULL;
                if (!b || (r->t_kernel_ms > 0 && !(b->t_kernel_ms <= r->t_kernel_ms)))
                    best = i;
            } else if (shown < 0 ||
                       r->draws_passed > d->samples[shown].rec->proto[p].draws_passed) {
                shown = i;
            }
        }
        c->best[p] = best;
        c->shown[p] = best >= 0 ? best : shown;
    }
}

static void order_rows(kbv_report_data *d)
{
    const kbv_metrics *m = &d->metrics;
    for (int i = 0; i < m->n; i++) {
        if (m->groups[i].level != 0)
            continue;
        int levels = 0;
        for (int j = 0; j < m->n; j++)
            if (m->groups[j].level != 0 && !strcmp(m->groups[j].model, m->groups[i].model)) {
                levels++;
                d->rows[d->n_rows++] = j;
            }
        if (levels != 1)
            d->rows[d->n_rows++] = i;
    }
}

static void note_flag(kbv_report_data *d, const char *flag)
{
    for (int i = 0; i < d->n_flags; i++)
        if (!strcmp(d->flag_names[i], flag))
            return;
    if (d->n_flags < KBV_REPORT_MAX_FLAGS)
        snprintf(d->flag_names[d->n_flags++], sizeof d->flag_names[0], "%s", flag);
}

static int flag_index(const kbv_report_data *d, const char *flag)
{
    for (int i = 0; i < d->n_flags; i++)
        if (!strcmp(d->flag_names[i], flag))
            return i;
    return -1;
}

static void tally_sample(kbv_report_data *d, const kbv_report_sample *s, int group)
{
    if (group < 0)
        return;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        kbv_report_tally *t = &d->tally[group][p];
        t->samples++;
        if (s->fail[p] != KBV_FAIL_NONE) {
            t->failed++;
            t->fail[s->fail[p]]++;
        }
        const kbv_proto_result *pr = &s->rec->proto[p];
        for (int f = 0; f < pr->n_flags; f++) {
            int k = flag_index(d, pr->flags[f]);
            if (k >= 0)
                t->flags[k]++;
        }
    }
}

/* The one value every record shares, or "mixed" ("-" when there are none). */
static void common_field(const kbv_report_data *d, size_t offset, char *out, size_t cap)
{
    snprintf(out, cap, "-");
    for (int i = 0; i < d->n_samples; i++) {
        const char *v = (const char *)d->samples[i].rec + offset;
        if (i == 0)
            snprintf(out, cap, "%s", *v ? v : "-");
        else if (strcmp(out, *v ? v : "-")) {
            snprintf(out, cap, "mixed");
            return;
        }
    }
}

/* The samples' verified gate, "mixed", or "-" when there are none. */
static void common_gate(const kbv_report_data *d, char *out, size_t cap)
{
    snprintf(out, cap, "-");
    for (int i = 0; i < d->n_samples; i++) {
        kbv_gate g = d->samples[i].rec->gate;
        if (i == 0) {
            snprintf(out, cap, "%s", kbv_gate_get(g)->name);
        } else if (g != d->samples[0].rec->gate) {
            snprintf(out, cap, "mixed");
            return;
        }
    }
}

/* The samples' precision, "mixed" (fp32 and bf16 rows side by side), or "-". */
static void common_precision(const kbv_report_data *d, char *out, size_t cap)
{
    snprintf(out, cap, "-");
    for (int i = 0; i < d->n_samples; i++) {
        kbv_precision p = d->samples[i].rec->precision;
        if (i == 0) {
            snprintf(out, cap, "%s", kbv_precision_get(p)->name);
        } else if (p != d->samples[0].rec->precision) {
            snprintf(out, cap, "mixed");
            return;
        }
    }
}

/* The vendor libraries the samples' runs allowed, "mixed", or "-" when there are none. */
static void common_vendor_libs(const kbv_report_data *d, char *out, size_t cap)
{
    snprintf(out, cap, "-");
    for (int i = 0; i < d->n_samples; i++) {
        unsigned v = d->samples[i].rec->vendor_libs;
        if (i == 0) {
            kbv_vendor_format(v, out, cap);
        } else if (v != d->samples[0].rec->vendor_libs) {
            snprintf(out, cap, "mixed");
            return;
        }
    }
}

/* The suite of the config (or the default one) with every problem a record
 * names, in d->suite. */
static kbv_status take_suite(kbv_report_data *d, const kbv_report_config *cfg)
{
    d->denominator = cfg ? cfg->denominator : KBV_DENOM_SUITE;
    if (cfg && cfg->suite)
        KBV_TRY(kbv_suite_copy(cfg->suite, &d->suite));
    else
        KBV_TRY(kbv_suite_default(NULL, &d->suite));
    for (int i = 0; i < d->records.n; i++) {
        int level, id;
        kbv_record_problem_of(&d->records.items[i], &level, &id);
        KBV_TRY(kbv_suite_add(&d->suite, level, id));
    }
    return KBV_OK;
}

static bool level_seen(const kbv_report_data *d, int level)
{
    for (int i = 0; i < d->n_problems; i++)
        if (d->problems[i].level == level && d->problems[i].sampled)
            return true;
    return false;
}

/* The problems: those with samples, and in the suite view every other
 * problem of the suite at a level the records have (a cell without
 * samples: failed in the paper's count). */
static kbv_status index_problems(kbv_report_data *d, const ordered *o, int n)
{
    d->problems = calloc((size_t)(n + d->suite.n + 1), sizeof *d->problems);
    if (!d->problems)
        return kbv_fail(KBV_ERR_NOMEM, "indexing %d problems", n + d->suite.n);
    for (int i = 0; i < n; i++) {
        if (i > 0 && o[i].level == o[i - 1].level && o[i].id == o[i - 1].id)
            continue;
        if (problem_index(d, o[i].level, o[i].id) >= 0)
            continue;
        kbv_report_problem *p = &d->problems[d->n_problems++];
        p->level = o[i].level;
        p->id = o[i].id;
        p->sampled = true;
        qsort(d->problems, (size_t)d->n_problems, sizeof *d->problems, cmp_problem);
    }
    if (d->denominator == KBV_DENOM_SUITE) {
        int sampled = d->n_problems;
        for (int q = 0; q < d->suite.n; q++) {
            const kbv_suite_problem *sp = &d->suite.p[q];
            bool known = false;
            for (int k = 0; k < sampled && !known; k++)
                known = d->problems[k].level == sp->level && d->problems[k].id == sp->id;
            if (known || !level_seen(d, sp->level))
                continue;
            kbv_report_problem *p = &d->problems[d->n_problems++];
            p->level = sp->level;
            p->id = sp->id;
        }
        qsort(d->problems, (size_t)d->n_problems, sizeof *d->problems, cmp_problem);
    }
    for (int i = 0; i < d->n_problems; i++) {
        kbv_report_problem *p = &d->problems[i];
        int k = kbv_suite_find(&d->suite, p->level, p->id);
        snprintf(p->key, sizeof p->key, "L%d/%d", p->level, p->id);
        p->degenerate = k >= 0 && d->suite.p[k].degenerate;
    }
    return KBV_OK;
}

kbv_status kbv_report_data_build(kbv_report_data *d, const kbv_report_config *cfg)
{
    kbv_status st = KBV_OK;
    int n = d->records.n;
    ordered *o = NULL;
    KBV_TRY(take_suite(d, cfg));
    if (n == 0)
        return KBV_OK;
    o = malloc((size_t)n * sizeof *o);
    d->samples = calloc((size_t)n, sizeof *d->samples);
    d->models = calloc((size_t)n, sizeof *d->models);
    if (!o || !d->samples || !d->models)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "indexing %d records", n);
    for (int i = 0; i < n; i++) {
        o[i].r = &d->records.items[i];
        o[i].pos = i;
        kbv_record_problem_of(o[i].r, &o[i].level, &o[i].id);
    }
    qsort(o, (size_t)n, sizeof *o, cmp_ordered);

    /* models and the surviving samples (the last of duplicates) */
    for (int i = 0; i < n; i++) {
        bool superseded = i + 1 < n && !kbv_record_table_cmp(o[i].r, o[i + 1].r) &&
                          o[i].level == o[i + 1].level && o[i].id == o[i + 1].id &&
                          o[i].r->sample == o[i + 1].r->sample;
        if (superseded)
            continue;
        char name[sizeof d->models[0]];
        kbv_record_table_name(o[i].r, name, sizeof name);
        if (d->n_models == 0 || strcmp(d->models[d->n_models - 1], name))
            snprintf(d->models[d->n_models++], sizeof d->models[0], "%s", name);
        kbv_report_sample *s = &d->samples[d->n_samples++];
        s->rec = o[i].r;
        s->model = d->n_models - 1;
        for (int k = 0; k < KBV_LEGACY_COUNT; k++)
            d->legacy[k] += (s->rec->legacy >> k) & 1;
    }
    KBV_TRY_GOTO(index_problems(d, o, n), st, done);

    d->cells = calloc((size_t)d->n_models * (size_t)d->n_problems, sizeof *d->cells);
    if (!d->cells)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "indexing %d models x %d problems", d->n_models,
                      d->n_problems);
    for (int i = 0; i < d->n_samples; i++) {
        kbv_report_sample *s = &d->samples[i];
        int level, id;
        kbv_record_problem_of(s->rec, &level, &id);
        s->problem = problem_index(d, level, id);
        const kbv_report_problem *p = &d->problems[s->problem];
        snprintf(s->anchor, sizeof s->anchor, "s-m%d-L%d-%d-%d", s->model, p->level, p->id,
                 s->rec->sample);
        for (int k = 0; k < KBV_PROTO_COUNT; k++) {
            s->fail[k] = kbv_classify_failure(s->rec, (kbv_protocol)k);
            for (int f = 0; f < s->rec->proto[k].n_flags; f++)
                note_flag(d, s->rec->proto[k].flags[f]);
        }
        kbv_report_cell *c =
            &d->cells[(size_t)s->model * (size_t)d->n_problems + (size_t)s->problem];
        if (c->n == 0)
            c->first = i;
        c->n++;
    }
    for (size_t i = 0; i < (size_t)d->n_models * (size_t)d->n_problems; i++)
        choose(d, &d->cells[i]);
    qsort(d->flag_names, (size_t)d->n_flags, sizeof d->flag_names[0], cmp_flag);

    kbv_metrics_opts mo = {d->denominator, &d->suite};
    KBV_TRY_GOTO(kbv_metrics_compute_with(d->records.items, n, &mo, &d->metrics), st, done);
    d->tally = calloc((size_t)(d->metrics.n ? d->metrics.n : 1), sizeof *d->tally);
    d->rows = calloc((size_t)(d->metrics.n ? d->metrics.n : 1), sizeof *d->rows);
    if (!d->tally || !d->rows)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "failure tallies");
    for (int i = 0; i < d->n_samples; i++) {
        const kbv_report_sample *s = &d->samples[i];
        const kbv_report_problem *p = &d->problems[s->problem];
        if (p->degenerate)
            continue;
        tally_sample(d, s, kbv_report_group_of(d, d->models[s->model], 0));
        tally_sample(d, s, kbv_report_group_of(d, d->models[s->model], p->level));
    }
    order_rows(d);
    common_field(d, offsetof(kbv_record, device), d->device, sizeof d->device);
    common_field(d, offsetof(kbv_record, size), d->size, sizeof d->size);
    common_gate(d, d->gate, sizeof d->gate);
    common_precision(d, d->precision, sizeof d->precision);
    common_vendor_libs(d, d->vendor_libs, sizeof d->vendor_libs);
done:
    free(o);
    return st;
}

void kbv_report_data_free(kbv_report_data *d)
{
    kbv_record_list_free(&d->records);
    kbv_suite_free(&d->suite);
    kbv_torch_free(&d->torch);
    kbv_judge_list_free(&d->judges);
    free(d->models);
    free(d->problems);
    free(d->samples);
    free(d->cells);
    free(d->tally);
    free(d->rows);
    kbv_metrics_free(&d->metrics);
    memset(d, 0, sizeof *d);
}
