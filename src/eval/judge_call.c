/* Judging one call of the candidate: its outputs against the references
 * (the allclose gate, the strict rule, the leaderboard's stored view), the
 * integrity of its buffers and no late writes. */
#include "eval/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"

/* Poison, then every output compared: the candidate's and the budget
 * baseline's (tf32; bf16 in a bf16 run). */
kbv_status sample_poison_outputs(sample *s)
{
    kbv_status st = KBV_OK;
    sample_busy_enter(s, KBV_CHECK_POISON);
    for (int k = 0; k < s->g->n_outputs && st == KBV_OK; k++)
        st = s->svc->poison(s->svc, &s->out[k]);
    if (st == KBV_OK)   /* waited for here, so that its seconds are the poison's */
        st = s->svc->sync(s->svc);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Each output against the references: allclose against the paper's, and
 * where strict's were computed the oracle's class and error too, for the
 * candidate, with the budget baseline's error from the same pass. */
static kbv_status compare_each(sample *s, refs *r, kbv_compare_stats *cand, kbv_compare_stats *tf32)
{
    for (int k = 0; k < s->g->n_outputs; k++) {
        double tol = kbv_allclose_tol(s->out[k].dtype);
        const kbv_tensor *ref = r->ref ? &r->ref[k] : &r->klass[k];
        if (r->oracle)
            KBV_TRY(s->svc->compare_budget(s->svc, &s->out[k], &r->budget[k], ref,
                                           &r->oracle[k], &r->klass[k], tol, tol, &cand[k],
                                           &tf32[k]));
        else
            KBV_TRY(s->svc->compare(s->svc, &s->out[k], ref, NULL, NULL, tol, tol, &cand[k]));
    }
    return KBV_OK;
}

static kbv_status compare_all(sample *s, refs *r, kbv_compare_stats *cand, kbv_compare_stats *tf32)
{
    sample_busy_enter(s, KBV_CHECK_COMPARISONS);   /* each returns its statistics: synchronised */
    kbv_status st = compare_each(s, r, cand, tf32);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Late writes: the outputs must not change once the call has returned (the
 * runner synchronised the device first, so an honest candidate is done). At
 * least KBV_LATE_WRITE_WAIT_S passes between the return and the second hash:
 * the comparison in between takes that long on large outputs, and a short
 * sleep makes up the rest on small ones. */
#define KBV_LATE_WRITE_WAIT_S 3e-3

static kbv_status late_writes(sample *s, const uint64_t *before, char *why, size_t cap)
{
    double left = KBV_LATE_WRITE_WAIT_S - (kbv_monotonic_s() - s->call_returned_s);
    if (left > 0) {
        struct timespec pause = {0, (long)(left * 1e9)};
        nanosleep(&pause, NULL);
    }
    for (int k = 0; k < s->g->n_outputs; k++) {
        uint64_t h;
        KBV_TRY(sample_hash_tensor(s, &s->out[k], &h));
        if (h != before[k] && !why[0])
            snprintf(why, cap, "output '%s' changed after the call returned (late write)",
                     s->out[k].name ? s->out[k].name : "?");
    }
    return KBV_OK;
}

/* The outputs as the leaderboard gate's stored run judged them: allclose at
 * its stored tolerance against the same reference. */
static kbv_status judge_stored(sample *s, refs *r, kbv_stored_draw *d)
{
    kbv_status st = KBV_OK;
    kbv_compare_stats *stats = calloc((size_t)s->g->n_outputs + 1, sizeof *stats);
    if (!stats)
        return kbv_fail(KBV_ERR_NOMEM, "comparison of %d outputs", s->g->n_outputs);
    for (int k = 0; k < s->g->n_outputs; k++) {
        double tol = kbv_leaderboard_stored_tol(s->out[k].dtype);
        const kbv_tensor *ref = r->ref ? &r->ref[k] : &r->klass[k];
        sample_busy_enter(s, KBV_CHECK_COMPARISONS);
        kbv_status cmp =
            s->svc->compare(s->svc, &s->out[k], ref, NULL, NULL, tol, tol, &stats[k]);
        sample_busy_leave(s);
        KBV_TRY_GOTO(cmp, st, done);
    }
    kbv_judge_input in = {.n_outputs = s->g->n_outputs, .outputs = s->out, .cand = stats,
                          .tol = kbv_leaderboard_stored_tol(s->out[0].dtype)};
    kbv_judge_stored(&in, d);
done:
    free(stats);
    return st;
}

/* Judges the candidate's current outputs on input set `set`; stored, when
 * not NULL, gets the leaderboard gate's view of them too. */
kbv_status sample_judge_call(sample *s, int set, refs *r, kbv_draw_verdict *v,
                             kbv_stored_draw *stored)
{
    kbv_status st = KBV_OK;
    size_t n_out = (size_t)s->g->n_outputs + 1;
    kbv_compare_stats *cand = calloc(n_out, sizeof *cand), *tf32 = calloc(n_out, sizeof *tf32);
    uint64_t *out_hash = calloc(n_out, sizeof *out_hash);
    char why[KBV_REASON_CAP];
    bool params_touched;
    kbv_phase was = kbv_phase_enter(&s->clock, KBV_PHASE_AUDIT);
    if (!cand || !tf32 || !out_hash)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "judging %d outputs", s->g->n_outputs);
    for (int k = 0; k < s->g->n_outputs; k++)
        KBV_TRY_GOTO(sample_hash_tensor(s, &s->out[k], &out_hash[k]), st, done);
    kbv_phase_enter(&s->clock, was);
    KBV_TRY_GOTO(compare_all(s, r, cand, tf32), st, done);
    if (stored)
        KBV_TRY_GOTO(judge_stored(s, r, stored), st, done);
    kbv_phase_enter(&s->clock, KBV_PHASE_AUDIT);
    KBV_TRY_GOTO(sample_integrity(s, set, why, sizeof why, &params_touched), st, done);
    KBV_TRY_GOTO(late_writes(s, out_hash, why, sizeof why), st, done);
    kbv_phase_enter(&s->clock, was);
    kbv_judge_input in = {.n_outputs = s->g->n_outputs, .outputs = s->out, .cand = cand,
                          .tf32 = r->oracle ? tf32 : NULL,
                          .tol = kbv_allclose_tol(s->out[0].dtype),
                          .integrity = why[0] ? why : NULL};
    kbv_judge_draw(&in, v);
    /* the next references must see the params the run drew, not the candidate's */
    if (params_touched) {
        kbv_draw d = s->cur_params;
        KBV_TRY_GOTO(sample_fill_params(s, &d), st, done);
    }
done:
    kbv_phase_enter(&s->clock, was);
    free(cand);
    free(tf32);
    free(out_hash);
    return st;
}
