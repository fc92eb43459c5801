#include "report/torch_ref.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/report_data.h"

const char *kbv_torch_mode(kbv_protocol p) { return p == KBV_PROTO_STANDARD ? "fp32" : "tf32"; }

static double number_or_nan(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool same_key(const kbv_torch_entry *a, const kbv_torch_entry *b)
{
    return !strcmp(a->problem, b->problem) && !strcmp(a->size, b->size) &&
           !strcmp(a->mode, b->mode) && !strcmp(a->gpu, b->gpu);
}

static kbv_status add_entry(kbv_torch_times *t, const kbv_torch_entry *e)
{
    for (int i = 0; i < t->n; i++)
        if (same_key(&t->e[i], e)) {
            t->e[i] = *e;   /* the newest measurement wins */
            return KBV_OK;
        }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        kbv_torch_entry *g = realloc(t->e, (size_t)cap * sizeof *g);
        if (!g)
            return kbv_fail(KBV_ERR_NOMEM, "%d PyTorch times", cap);
        t->e = g;
        t->cap = cap;
    }
    t->e[t->n++] = *e;
    return KBV_OK;
}

static kbv_status read_entry(kbv_torch_times *t, const char *path, int lineno, const char *line)
{
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    const char *kind = o ? json_string_value(json_object_get(o, "kind")) : NULL;
    const char *fields[] = {"problem", "size", "mode", "gpu"};
    const char *v[4];
    bool ok = kind && !strcmp(kind, "torch-baseline");
    for (int k = 0; ok && k < 4; k++)
        ok = (v[k] = json_string_value(json_object_get(o, fields[k]))) != NULL;
    kbv_torch_entry e;
    memset(&e, 0, sizeof e);
    if (ok) {
        snprintf(e.problem, sizeof e.problem, "%s", v[0]);
        snprintf(e.size, sizeof e.size, "%s", v[1]);
        snprintf(e.mode, sizeof e.mode, "%s", v[2]);
        snprintf(e.gpu, sizeof e.gpu, "%s", v[3]);
        e.eager_ms = number_or_nan(o, "eager_ms");
        e.compile_ms = number_or_nan(o, "compile_ms");
        const char *why = json_string_value(json_object_get(o, "compile_error"));
        snprintf(e.compile_error, sizeof e.compile_error, "%s", why ? why : "");
    }
    json_decref(o);
    if (!ok)
        return kbv_fail(KBV_ERR_PARSE, "%s line %d: not an entry of bench/torch_baselines.py "
                        "(\"kind\": \"torch-baseline\" with problem, size, mode and gpu)", path,
                        lineno);
    return add_entry(t, &e);
}

kbv_status kbv_torch_load(const char *path, kbv_torch_times *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->source, sizeof t->source, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return kbv_fail(errno == ENOENT ? KBV_ERR_NOT_FOUND : KBV_ERR_IO,
                        "cannot read the PyTorch times %s: %s", path, strerror(errno));
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (st == KBV_OK && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        st = read_entry(t, path, lineno, line);
    }
    free(line);
    fclose(f);
    if (st != KBV_OK)
        kbv_torch_free(t);
    return st;
}

void kbv_torch_free(kbv_torch_times *t)
{
    free(t->e);
    memset(t, 0, sizeof *t);
}

/* The record's device names the entry's GPU: kbv writes "NVIDIA H200 / CUDA
 * 13.0" where PyTorch says "NVIDIA H200"; the CPU backend "cpu". */
static bool same_device(const char *record_device, const char *gpu)
{
    size_t n = strlen(gpu);
    return n > 0 && !strncmp(record_device, gpu, n) &&
           (record_device[n] == '\0' || record_device[n] == ' ');
}

const kbv_torch_entry *kbv_torch_find(const kbv_torch_times *t, const kbv_record *r,
                                      kbv_protocol p)
{
    const char *mode = kbv_torch_mode(p);
    for (int i = 0; i < t->n; i++) {
        const kbv_torch_entry *e = &t->e[i];
        if (!strcmp(e->problem, r->problem) && !strcmp(e->size, r->size) &&
            !strcmp(e->mode, mode) && same_device(r->device, e->gpu))
            return e;
    }
    return NULL;
}

/* Whether problem q is one of group g's (the group's denominator view). */
static bool in_group(const kbv_report_data *d, const kbv_group_metrics *g, int m, int q)
{
    const kbv_report_problem *pr = &d->problems[q];
    if (pr->degenerate || (g->level && pr->level != g->level))
        return false;
    if (!g->level && kbv_report_group_of(d, g->model, pr->level) < 0)
        return false;   /* not one of the model's levels */
    return d->denominator == KBV_DENOM_SUITE || kbv_report_cell_of(d, m, q)->n > 0;
}

void kbv_torch_metrics_of(const kbv_report_data *d, const kbv_torch_times *t, int g,
                          kbv_protocol p, kbv_torch_metrics *out)
{
    memset(out, 0, sizeof *out);
    out->vs_eager = out->vs_compile = out->fast1_eager = out->fast1_compile = NAN;
    const kbv_group_metrics *gm = &d->metrics.groups[g];
    int m = kbv_report_model_index(d, gm->model);
    double log_e = 0, log_c = 0;
    int fast_e = 0, fast_c = 0;
    for (int q = 0; m >= 0 && q < d->n_problems; q++) {
        if (!in_group(d, gm, m, q))
            continue;
        const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
        /* any of the problem's records finds its entry (the size and device are the run's) */
        const kbv_torch_entry *e = NULL;
        for (int i = c->first; i < c->first + c->n && !e; i++)
            e = kbv_torch_find(t, d->samples[i].rec, p);
        if (!e)
            continue;
        double tk = c->n && c->best[p] >= 0 ? d->samples[c->best[p]].rec->proto[p].t_kernel_ms
                                            : NAN;
        bool timed = tk > 0 && isfinite(tk);
        if (e->eager_ms > 0) {
            out->eager_measured++;
            if (timed) {
                out->eager_solved++;
                log_e += log(e->eager_ms / tk);
                fast_e += e->eager_ms / tk > 1;
            }
        }
        if (e->compile_ms > 0) {
            out->compile_measured++;
            if (timed) {
                out->compile_solved++;
                log_c += log(e->compile_ms / tk);
                fast_c += e->compile_ms / tk > 1;
            }
        }
    }
    if (out->eager_solved)
        out->vs_eager = exp(log_e / out->eager_solved);
    if (out->compile_solved)
        out->vs_compile = exp(log_c / out->compile_solved);
    if (out->eager_measured)
        out->fast1_eager = 100.0 * fast_e / out->eager_measured;
    if (out->compile_measured)
        out->fast1_compile = 100.0 * fast_c / out->compile_measured;
}
