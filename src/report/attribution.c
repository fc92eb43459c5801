#include "report/attribution.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[KBV_ATTR_COUNT] = {"neither", "TF32 only", "hidden only",
                                                        "both"};

const char *kbv_attribution_class_name(kbv_attribution_class c)
{
    return (unsigned)c < KBV_ATTR_COUNT ? class_names[c] : "?";
}

/* Whether any sample of the cell evaluated the verified protocol. */
static bool verified_evaluated(const kbv_report_data *d, const kbv_report_cell *c)
{
    for (int i = c->first; i < c->first + c->n; i++)
        if (!d->samples[i].rec->proto[KBV_PROTO_VERIFIED].skipped)
            return true;
    return false;
}

static void classify(const kbv_report_data *d, int q, kbv_attribution_problem *out)
{
    out->tf32_model = out->hidden_model = -1;
    out->drop = NAN;
    for (int m = 0; m < d->n_models; m++) {
        const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
        if (c->n == 0 || c->best[KBV_PROTO_STANDARD] < 0)
            continue;   /* not solved under fp32 + standard: nothing to flip */
        const kbv_record *r = d->samples[c->best[KBV_PROTO_STANDARD]].rec;
        double fp32 = r->proto[KBV_PROTO_STANDARD].t_baseline_ms;
        double tf32 = r->proto[KBV_PROTO_VERIFIED].t_baseline_ms;
        if (fp32 > 0 && tf32 > 0 && isfinite(fp32) && isfinite(tf32)) {
            /* the same kernel time over both baselines: the speedup drops by 1 - tf32/fp32 */
            double drop = 1 - tf32 / fp32;
            if (!(out->drop >= drop))
                out->drop = drop;
            if (drop >= KBV_ATTRIBUTION_DROP && out->tf32_model < 0)
                out->tf32_model = m;
        }
        if (c->best[KBV_PROTO_VERIFIED] < 0 && verified_evaluated(d, c) && out->hidden_model < 0)
            out->hidden_model = m;
    }
    bool tf32 = out->tf32_model >= 0, hidden = out->hidden_model >= 0;
    out->cls = tf32 && hidden ? KBV_ATTR_BOTH
               : tf32         ? KBV_ATTR_TF32_ONLY
               : hidden       ? KBV_ATTR_HIDDEN_ONLY
                              : KBV_ATTR_NEITHER;
}

kbv_status kbv_attribution_compute(const kbv_report_data *d, kbv_attribution *a)
{
    memset(a, 0, sizeof *a);
    a->problems = calloc((size_t)(d->n_problems + 1), sizeof *a->problems);
    a->rows = calloc((size_t)(d->n_problems + 2), sizeof *a->rows);
    if (!a->problems || !a->rows) {
        kbv_attribution_free(a);
        return kbv_fail(KBV_ERR_NOMEM, "the attribution of %d problems", d->n_problems);
    }
    kbv_attribution_row all = {0};
    for (int q = 0; q < d->n_problems; q++) {
        const kbv_report_problem *p = &d->problems[q];
        kbv_attribution_problem *ap = &a->problems[q];
        if (p->degenerate) {
            ap->cls = -1;
            ap->tf32_model = ap->hidden_model = -1;
            ap->drop = NAN;
            continue;
        }
        classify(d, q, ap);
        /* problems are sorted by level: a new level opens a row */
        if (a->n_rows == 0 || a->rows[a->n_rows - 1].level != p->level)
            a->rows[a->n_rows++].level = p->level;
        kbv_attribution_row *row = &a->rows[a->n_rows - 1];
        row->count[ap->cls]++;
        row->total++;
        all.count[ap->cls]++;
        all.total++;
    }
    a->rows[a->n_rows++] = all;
    return KBV_OK;
}

void kbv_attribution_free(kbv_attribution *a)
{
    free(a->rows);
    free(a->problems);
    memset(a, 0, sizeof *a);
}
