/* The correctness phase: every planned draw a wanted protocol judges, one
 * call of the candidate each, tallied per protocol (DESIGN section 4). */
#include "eval/sample.h"

#include <stdio.h>
#include <string.h>

_Static_assert(KBV_RECORD_MAX_DRAWS >= KBV_PLAN_DRAWS, "a record holds every planned draw");

/* The protocols nest: strict judges every draw, verified the base draws and
 * D1-D4, standard the base draws; a draw no wanted protocol judges is skipped. */
static bool draw_needed(const sample *s, const kbv_planned_draw *pd)
{
    if (sample_wants(s, KBV_PROTO_STRICT))
        return true;
    return pd->standard || (pd->verified && sample_wants(s, KBV_PROTO_VERIFIED));
}

static void store_draw(kbv_record *rec, const kbv_planned_draw *pd, const kbv_draw_verdict *v)
{
    if (rec->n_draws >= KBV_RECORD_MAX_DRAWS)
        return;
    kbv_draw_record *d = &rec->draws[rec->n_draws++];
    snprintf(d->dist, sizeof d->dist, "%s", pd->label);
    d->std_pass = v->std_skipped ? -1 : v->std_pass;
    d->strict_pass = v->strict_skipped ? -1 : v->strict_pass;
    d->allclose_fail = v->allclose_fail;
    d->unjudged = v->unjudged;
    d->oracle_nonfinite = v->oracle_nonfinite;
    d->poison_left = v->poison_left;
    d->max_abs_diff = v->max_abs_diff;
    d->rel_l2 = v->rel_l2;
    d->budget_rel_l2 = v->budget_rel_l2;
    d->max_err = v->max_err;
    d->budget_max_err = v->budget_max_err;
    d->first_bad_ndim = v->first_bad_ndim;
    memcpy(d->first_bad, v->first_bad, sizeof d->first_bad);
}

/* A fault during draw `at` (plan index, or -1 before the first) fails the
 * protocols whose draws were not all judged yet. */
static void fail_undecided(const kbv_draw_plan *plan, verdicts *vs, int at, const char *why)
{
    if (at < plan->n_standard)
        kbv_tally_fail(&vs->std, "%s", why);
    if (at < plan->verified_end) {
        kbv_tally_fail(&vs->ver, "%s", why);
        kbv_gate_fault(&vs->leaderboard, at < plan->n_standard, why);
    }
    kbv_tally_fail(&vs->strict, "%s", why);
}

kbv_status protocol_correctness(sample *s, const char *so_path, kbv_record *rec, verdicts *vs)
{
    kbv_child_result res;
    char why[KBV_REASON_CAP + 128];
    refs r;
    memset(&r, 0, sizeof r);
    /* without strict its references, the float64 oracle first, are not needed:
     * standard and verified judge against the paper's reference alone */
    const unsigned strict_roles = sample_wants(s, KBV_PROTO_STRICT) ? REFS_STRICT : 0;
    KBV_TRY(sample_load_child(s, so_path, &res));
    if (res.fault != KBV_FAULT_NONE) {
        note_child_fault(rec, &res, "load and prepare", why, sizeof why);
        fail_undecided(&s->plan, vs, -1, why);
        return KBV_OK;
    }
    for (int i = 0; i < s->plan.n; i++) {
        const kbv_planned_draw *pd = &s->plan.d[i];
        kbv_status st = KBV_OK;
        if (!draw_needed(s, pd))
            continue;
        if (pd->redraw_params) {
            KBV_TRY(sample_fill_params(s, &s->plan.params_d5));
            KBV_TRY(sample_child_prepare(s, &res));
            if (res.fault != KBV_FAULT_NONE) {
                note_child_fault(rec, &res, "prepare for D5", why, sizeof why);
                fail_undecided(&s->plan, vs, i, why);
                return KBV_OK;
            }
        }
        KBV_TRY(sample_fill_set(s, 0, &pd->draw));
        KBV_TRY(sample_refs_compute(s, 0, strict_roles | REFS_PAPER, &r));
        KBV_TRY_GOTO(sample_poison_outputs(s), st, draw_done);
        KBV_TRY_GOTO(sample_child_call(s, 0, 1, false, &res), st, draw_done);
        if (res.fault != KBV_FAULT_NONE) {
            note_child_fault(rec, &res, pd->label, why, sizeof why);
            fail_undecided(&s->plan, vs, i, why);
            sample_refs_release(s, &r);
            return KBV_OK;
        }
        kbv_draw_verdict v;
        kbv_stored_draw stored;
        bool gate_draw = s->ev->opts.gate == KBV_GATE_LEADERBOARD && (pd->standard || pd->verified);
        KBV_TRY_GOTO(sample_judge_call(s, 0, &r, &v, gate_draw ? &stored : NULL), st, draw_done);
        store_draw(rec, pd, &v);
        if (pd->standard)
            kbv_tally_add_std(&vs->std, pd->label, &v);
        if (pd->verified)
            kbv_tally_add_std(&vs->ver, pd->label, &v);
        if (gate_draw && pd->standard)
            kbv_gate_add_standard(&vs->leaderboard, pd->label, &stored);
        else if (gate_draw)
            kbv_gate_add_hidden(&vs->leaderboard, pd->label, &stored);
        kbv_tally_add_strict(&vs->strict, pd->label, &v);
    draw_done:
        sample_refs_release(s, &r);
        if (st != KBV_OK)
            return kbv_relay_at(__FILE__, __LINE__, st);
        if (pd->redraw_params) {
            KBV_TRY(sample_fill_params(s, &s->plan.params));
            KBV_TRY(sample_child_prepare(s, &res));
            if (res.fault != KBV_FAULT_NONE) {
                note_child_fault(rec, &res, "prepare after D5", why, sizeof why);
                fail_undecided(&s->plan, vs, i + 1, why);
                return KBV_OK;
            }
        }
    }
    return KBV_OK;
}
