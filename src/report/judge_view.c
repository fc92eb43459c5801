#include "report/judge_view.h"

#include <stdlib.h>
#include <string.h>

int kbv_judgements_of(const kbv_judge_list *l, const kbv_record *r, const kbv_judge_record **out,
                      int cap)
{
    int n = 0;
    for (int i = 0; i < l->n && n < cap; i++) {
        const kbv_judge_record *j = &l->items[i];
        if (j->sample == r->sample && !strcmp(j->model, r->model) &&
            !strcmp(j->problem, r->problem) && !strcmp(j->source_sha256, r->source_sha256)) {
            /* a later answer of the same judge replaces an earlier one */
            int k = 0;
            while (k < n && strcmp(out[k]->judge, j->judge))
                k++;
            out[k] = j;
            n += k == n;
        }
    }
    return n;
}

static kbv_judge_row *row_of(kbv_judge_table *t, const char *model, const char *judge, int level)
{
    for (int i = 0; i < t->n; i++)
        if (t->rows[i].level == level && !strcmp(t->rows[i].model, model) &&
            !strcmp(t->rows[i].judge, judge))
            return &t->rows[i];
    kbv_judge_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "%s", model);
    snprintf(r->judge, sizeof r->judge, "%s", judge);
    r->level = level;
    return r;
}

static void count(kbv_judge_row *row, const kbv_judge_record *j, bool strict_fails)
{
    bool flag = kbv_judge_label_flags(j->label);
    row->judged++;
    row->flagged += flag;
    row->uncertain += j->label == KBV_JUDGE_UNCERTAIN;
    row->strict_fails += strict_fails;
    row->both += flag && strict_fails;
    row->judge_only += flag && !strict_fails;
    row->strict_only += !flag && strict_fails;
    row->neither += !flag && !strict_fails;
}

static int cmp_row(const void *pa, const void *pb)
{
    const kbv_judge_row *a = pa, *b = pb;
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    if ((c = strcmp(a->judge, b->judge)))
        return c;
    if ((a->level == 0) != (b->level == 0))
        return a->level == 0 ? 1 : -1;
    return (a->level > b->level) - (a->level < b->level);
}

kbv_status kbv_judge_table_compute(const kbv_report_data *d, const kbv_judge_list *l,
                                   kbv_judge_table *t)
{
    memset(t, 0, sizeof *t);
    /* at most a level row and a pooled row per judgement */
    t->rows = calloc((size_t)(2 * l->n + 1), sizeof *t->rows);
    if (!t->rows)
        return kbv_fail(KBV_ERR_NOMEM, "the judge table of %d judgements", l->n);
    for (int i = 0; i < d->n_samples; i++) {
        const kbv_report_sample *s = &d->samples[i];
        const kbv_report_problem *q = &d->problems[s->problem];
        if (q->degenerate)
            continue;
        const kbv_judge_record *js[16];
        int n = kbv_judgements_of(l, s->rec, js, 16);
        bool strict_fails = !s->rec->proto[KBV_PROTO_STRICT].correct;
        for (int k = 0; k < n; k++) {
            if (js[k]->label == KBV_JUDGE_NO_ANSWER)
                continue;
            count(row_of(t, s->rec->model, js[k]->judge, q->level), js[k], strict_fails);
            count(row_of(t, s->rec->model, js[k]->judge, 0), js[k], strict_fails);
        }
    }
    qsort(t->rows, (size_t)t->n, sizeof *t->rows, cmp_row);
    return KBV_OK;
}

void kbv_judge_table_free(kbv_judge_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}
