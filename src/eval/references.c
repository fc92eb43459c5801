/* The references of one draw, computed on the candidate's own input
 * buffers: the baselines of the precision's roles (eval/precision.h: fp32,
 * fp32-strict and tf32 in an fp32 run; the one bf16 baseline in a bf16 run,
 * run once for all its roles) and the float64 oracle, or only the paper's
 * reference where strict is not evaluated. A mode that runs the
 * same code as another on this graph (kbv_mode_equivalent: no product, or
 * only products, where TF32 alone tells the modes apart) is run once for
 * both: its outputs would be the other's, and they are the largest share of
 * the checking's device time. */
#include "eval/sample.h"

#include <stdlib.h>
#include <string.h>

void sample_refs_release(sample *s, refs *r)
{
    for (int m = 0; m < KBV_MODE_COUNT; m++) {
        if (r->have[m])
            for (int k = 0; k < s->g->n_outputs; k++)
                if (r->out[m][k].data)
                    s->ev->be[m]->release(s->ev->be[m], r->out[m][k].data);
        free(r->out[m]);
    }
    memset(r, 0, sizeof *r);
}

/* Mode m's outputs on (in, par), once per draw and once for the modes that
 * run the same code; *role points at them. */
static kbv_status run_mode(sample *s, refs *r, kbv_mode m, const kbv_tensor *in,
                           const kbv_tensor *par, const kbv_tensor **role)
{
    kbv_mode same = kbv_mode_equivalent(s->ev->be[m], s->g, m);
    if (s->ev->be[same])
        m = same;
    if (!r->have[m]) {
        kbv_backend *be = s->ev->be[m];
        if (!r->out[m])
            r->out[m] = calloc((size_t)s->g->n_outputs + 1, sizeof *r->out[m]);
        if (!r->out[m])
            return kbv_fail(KBV_ERR_NOMEM, "outputs of %d", s->g->n_outputs);
        KBV_TRY(kbv_graph_run(s->g, be, in, par, r->out[m]));
        r->have[m] = true;
        /* the comparison runs on the services backend: this one's work must be done */
        KBV_TRY(be->sync(be));
    }
    *role = r->out[m];
    return KBV_OK;
}

/* The float64 oracle on float64 copies of set's inputs, or on a float32
 * input itself where every op reading it widens it as it reads
 * (kbv_graph_takes_f32_input): the same values, without the copy's pass. */
static kbv_status oracle_of(sample *s, int set, refs *r)
{
    kbv_status st = KBV_OK;
    kbv_backend *be64 = s->ev->be[KBV_MODE_FP64];
    kbv_tensor *in64 = calloc((size_t)s->g->n_inputs + 1, sizeof *in64);
    bool *owned = calloc((size_t)s->g->n_inputs + 1, sizeof *owned);
    if (!in64 || !owned)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "float64 inputs");
    for (int i = 0; i < s->g->n_inputs; i++) {
        in64[i] = s->in[set][i];
        if (!kbv_dtype_is_float(in64[i].dtype) ||
            (in64[i].dtype == KBV_F32 && kbv_graph_takes_f32_input(be64, s->g, i)))
            continue;
        in64[i].dtype = KBV_F64;
        void *p = NULL;
        KBV_TRY_GOTO(be64->alloc(be64, kbv_tensor_bytes(&in64[i]), &p), st, done);
        in64[i].data = p;
        owned[i] = true;
        KBV_TRY_GOTO(be64->convert(be64, &s->in[set][i], &in64[i]), st, done);
    }
    KBV_TRY_GOTO(run_mode(s, r, KBV_MODE_FP64, in64, s->par64, &r->oracle), st, done);
done:
    for (int i = 0; owned && i < s->g->n_inputs; i++)
        if (owned[i])
            be64->release(be64, in64[i].data);
    free(in64);
    free(owned);
    return st;
}

/* Strict's references: the class and budget baselines, and the oracle
 * (its seconds charged to the oracle, eval/busy.h). */
static kbv_status strict_refs(sample *s, int set, const kbv_precision_modes *pm, refs *r)
{
    KBV_TRY(run_mode(s, r, pm->strict_class, s->in[set], s->par, &r->klass));
    KBV_TRY(run_mode(s, r, pm->strict, s->in[set], s->par, &r->budget));
    sample_busy_enter(s, KBV_CHECK_ORACLE);
    kbv_status st = oracle_of(s, set, r);
    sample_busy_leave(s);
    return st;
}

static kbv_status refs_compute(sample *s, int set, unsigned roles, refs *r)
{
    kbv_status st = KBV_OK;
    const kbv_precision_modes *pm = kbv_precision_modes_get(s->ev->opts.precision);
    memset(r, 0, sizeof *r);
    if (roles & REFS_PAPER)
        KBV_TRY_GOTO(run_mode(s, r, pm->reference, s->in[set], s->par, &r->ref), st, done);
    if (roles & REFS_STRICT)
        KBV_TRY_GOTO(strict_refs(s, set, pm, r), st, done);
done:
    if (st != KBV_OK)
        sample_refs_release(s, r);
    return st;
}

kbv_status sample_refs_compute(sample *s, int set, unsigned roles, refs *r)
{
    sample_busy_enter(s, KBV_CHECK_REFERENCES);   /* every mode's run ends in a sync */
    kbv_status st = refs_compute(s, set, roles, r);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}
