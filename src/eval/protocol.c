/* kbv_protocol_run: one sample through the three protocols -- the
 * correctness draws, the allowlist, the timings, strict's audits and the
 * memory -- and their verdicts into the record. The steps live in the
 * files eval/sample.h names. */
#include "eval/protocol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/ceilings.h"
#include "eval/configs.h"
#include "eval/sample.h"

_Static_assert(KBV_RECORD_MAX_DROPPED >= KBV_MAX_CONFIGS, "a record lists every dropped config");

static void set_correctness(kbv_proto_result *p, kbv_tally *t, bool correct, int planned)
{
    p->correct = correct;
    if (!correct)
        snprintf(p->reason, sizeof p->reason, "%s", t->reason);
    p->draws_passed = t->passed;
    p->draws_skipped = t->skipped;
    p->draws_total = planned;
}

void protocol_fail(kbv_proto_result *p, const char *why)
{
    if (!p->correct)
        return;
    p->correct = false;
    snprintf(p->reason, sizeof p->reason, "%.*s", (int)sizeof p->reason - 1, why);
}

static void set_time(kbv_proto_result *p, double t_ms, double spread_ms, double base_ms,
                     double sol_ms)
{
    p->t_kernel_ms = t_ms;
    p->t_kernel_spread_ms = spread_ms;
    p->t_baseline_ms = base_ms;
    p->speedup = t_ms > 0 && base_ms > 0 ? base_ms / t_ms : NAN;
    p->sol_fraction = t_ms > 0 && sol_ms > 0 ? sol_ms / t_ms : NAN;
}

kbv_status kbv_protocol_run(kbv_evaluator *ev, const kbv_graph *g, const char *problem_key,
                            const kbv_baseline base[KBV_MODE_COUNT], const char *so_path,
                            kbv_record *rec)
{
    kbv_status st = KBV_OK;
    char why[KBV_REASON_CAP + 128];
    verdicts vs;
    memset(&vs, 0, sizeof vs);
    sample *s = calloc(1, sizeof *s);
    if (!s)
        return kbv_fail(KBV_ERR_NOMEM, "sample state");
    kbv_phase_clock_start(&s->clock, rec, KBV_PHASE_CORRECTNESS);
    s->rec = rec;
    if (g->n_outputs < 1)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s has no outputs", problem_key);
    s->ev = ev;
    s->svc = ev->be[KBV_MODE_FP32];
    s->g = g;
    s->key = problem_key;
    /* the ceilings are an H200's: meaningless for the CPU. A bf16 run moves
     * 2-byte floats and may use the BF16 tensor-core rate. */
    const kbv_precision prec = ev->opts.precision;
    const double flops = kbv_graph_flops(g);
    const double min_bytes =
        kbv_graph_min_bytes_stored(g, kbv_precision_get(prec)->float_dtype);
    s->sol_ms = ev->opts.device < 0 ? NAN
                : prec == KBV_PRECISION_BF16 ? 1e3 * kbv_sol_seconds_bf16(flops, min_bytes)
                                             : 1e3 * kbv_sol_seconds(flops, min_bytes, 1);
    s->sol_floor_ms = ev->opts.device >= 0 ? 1e3 * kbv_sol_floor_seconds(flops, min_bytes) : NAN;
    kbv_draw_plan_make(ev->opts.run_seed, g->def, &s->plan);
    /* the problem's hidden configs as checked at this size (verified and strict judge
     * them); the record lists those left out */
    if (sample_wants(s, KBV_PROTO_VERIFIED) || sample_wants(s, KBV_PROTO_STRICT)) {
        const kbv_config_check *check = NULL;
        KBV_TRY_GOTO(kbv_config_cache_get(&ev->configs, ev->be[KBV_MODE_FP32], g, &check), st,
                     done);
        kbv_draw_plan_check(&s->plan, check);
    }
    for (int c = 0; c < s->plan.n_dropped; c++) {
        kbv_dropped_config *x = &rec->dropped[rec->n_dropped++];
        snprintf(x->config, sizeof x->config, "%s", s->plan.dropped[c].label);
        snprintf(x->reason, sizeof x->reason, "%s", s->plan.dropped[c].reason);
    }
    KBV_TRY_GOTO(sample_make_layout(s), st, done);
    KBV_TRY_GOTO(sample_fill_params(s, &s->plan.params), st, done);
    KBV_TRY_GOTO(sample_fill_set(s, 1, &s->plan.d[0].draw), st, done);

    KBV_TRY_GOTO(protocol_correctness(s, so_path, rec, &vs), st, done);
    bool std_ok = kbv_tally_correct(&vs.std);
    /* verified under its gate (kbv_eval_opts.gate); either way it needs the
     * standard protocol's pass, as the leaderboard needs the standard run's time */
    kbv_tally *ver = &vs.ver;
    bool promoted = false;
    char promotion[KBV_REASON_CAP + 256] = "";
    bool ver_ok;
    if (ev->opts.gate == KBV_GATE_LEADERBOARD) {
        ver = &vs.leaderboard.stored;
        ver_ok = kbv_gate_correct(&vs.leaderboard, kbv_allclose_tol(s->out[0].dtype), &promoted,
                                  promotion, sizeof promotion) &&
                 std_ok;
    } else {
        ver_ok = kbv_tally_correct(ver) && std_ok;
    }
    if (!std_ok)
        kbv_tally_fail(ver, "%s", vs.std.reason);
    bool strict_ok = kbv_tally_correct(&vs.strict) && sample_wants(s, KBV_PROTO_STRICT);
    /* a strict failure past the draws (the allowlist, the time) keeps the
     * first reason but the later audits still run, so the record names
     * every check the candidate fails */
    const bool strict_draws_ok = strict_ok;
    kbv_proto_result *P = rec->proto;
    const kbv_baseline *b_std = &base[kbv_precision_baseline(prec, KBV_PROTO_STANDARD)];
    const kbv_baseline *b_ver = &base[kbv_precision_baseline(prec, KBV_PROTO_VERIFIED)];
    const kbv_baseline *b_strict = &base[kbv_precision_baseline(prec, KBV_PROTO_STRICT)];
    P[KBV_PROTO_STANDARD].t_baseline_ms = b_std->std_mean_ms;
    P[KBV_PROTO_VERIFIED].t_baseline_ms = b_ver->std_mean_ms;
    P[KBV_PROTO_STRICT].t_baseline_ms = b_strict->strict_median_ms;
    set_correctness(&P[KBV_PROTO_STANDARD], &vs.std, std_ok, s->plan.n_standard);
    set_correctness(&P[KBV_PROTO_VERIFIED], ver, ver_ok, s->plan.n_verified);
    if (ver_ok && promoted) {
        kbv_proto_add_flag(&P[KBV_PROTO_VERIFIED], "leaderboard-promoted");
        snprintf(P[KBV_PROTO_VERIFIED].advisory, sizeof P[KBV_PROTO_VERIFIED].advisory, "%.380s",
                 promotion);
    }
    set_correctness(&P[KBV_PROTO_STRICT], &vs.strict, strict_ok, s->plan.n);
    kbv_phase_enter(&s->clock, KBV_PHASE_AUDIT);
    if (sample_wants(s, KBV_PROTO_STRICT) && !s->python &&
        !protocol_binary_allowed(s, so_path, why, sizeof why)) {
        kbv_proto_add_flag(&P[KBV_PROTO_STRICT], "binary-allowlist");
        protocol_fail(&P[KBV_PROTO_STRICT], why);
        strict_ok = false;
    }
    kbv_phase_enter(&s->clock, KBV_PHASE_TIMING);

    if (std_ok || strict_draws_ok) {
        KBV_TRY_GOTO(protocol_ready_for_timing(s, so_path, rec, why, sizeof why), st, done);
        if (why[0]) {
            for (int p = 0; p < KBV_PROTO_COUNT; p++)
                protocol_fail(&P[p], why);
        }
    }
    if (P[KBV_PROTO_STANDARD].correct &&
        (sample_wants(s, KBV_PROTO_STANDARD) || sample_wants(s, KBV_PROTO_VERIFIED))) {
        std_timing t;
        KBV_TRY_GOTO(protocol_time_standard(s, rec, &t, why, sizeof why), st, done);
        if (!t.ok) {
            protocol_fail(&P[KBV_PROTO_STANDARD], why);
            protocol_fail(&P[KBV_PROTO_VERIFIED], why);
        } else {
            set_time(&P[KBV_PROTO_STANDARD], t.st.mean, t.st.sd, b_std->std_mean_ms,
                     s->sol_ms);
            set_time(&P[KBV_PROTO_VERIFIED], t.st.mean, t.st.sd, b_ver->std_mean_ms,
                     s->sol_ms);
            for (int p = KBV_PROTO_STANDARD; p <= KBV_PROTO_VERIFIED; p++) {
                P[p].sm_mhz = t.clock.min_mhz;
                P[p].throttled = t.throttled;
            }
        }
    }
    kbv_proto_result *S = &P[KBV_PROTO_STRICT];
    if (kbv_precision_modes_get(prec)->report_fp32_strict)
        S->t_fp32_strict_ms = base[KBV_MODE_FP32_STRICT].strict_median_ms;
    if (strict_draws_ok && !s->child_dead) {
        strict_timing t;
        KBV_TRY_GOTO(protocol_time_strict(s, rec, &t, why, sizeof why), st, done);
        if (!t.ok) {
            protocol_fail(S, why);
        } else {
            set_time(S, t.st.median, t.st.iqr, b_strict->strict_median_ms, s->sol_ms);
            S->sm_mhz = t.clock.min_mhz;
            S->throttled = t.throttled;
            if (kbv_below_sol(t.st.median, s->sol_floor_ms)) {
                char a[32], b[32];
                snprintf(why, sizeof why, "median time %s ms is below 0.9 x the speed-of-light "
                         "floor %s ms (the minimum bytes at the HBM peak or the FLOPs at the "
                         "FP16 tensor-core peak)", kbv_fmt_sci(t.st.median, 2, a, sizeof a),
                         kbv_fmt_sci(s->sol_floor_ms, 2, b, sizeof b));
                kbv_proto_add_flag(S, "below-sol");
                protocol_fail(S, why);
            }
            if (S->speedup > KBV_REVIEW_SPEEDUP)
                kbv_proto_add_flag(S, "review-speedup");
            if (!s->child_dead) {
                kbv_phase_enter(&s->clock, KBV_PHASE_AUDIT);
                KBV_TRY_GOTO(protocol_strict_audits(s, so_path, rec, S), st, done);
                if (S->correct)
                    KBV_TRY_GOTO(protocol_hidden_shapes(s, so_path, rec, S), st, done);
                kbv_phase_enter(&s->clock, KBV_PHASE_TIMING);
            }
        }
    } else if (S->correct) {
        protocol_fail(S, rec->has_fault ? rec->fault_reason : "the candidate process is gone");
    }
    /* a KernelBench-format file: what its runners saw over every call, the
     * timed ones included (a failure found earlier keeps its reason) */
    if (sample_wants(s, KBV_PROTO_STRICT) && s->python)
        protocol_python_audits(s, S);

    kbv_phase_enter(&s->clock, KBV_PHASE_NONE);
    /* memory: the candidate's peak (its buffers included) against each baseline's */
    if (s->child && !s->child_dead) {
        size_t peak = 0;
        kbv_child_result res;
        KBV_TRY_GOTO(kbv_child_memory(s->child, &peak, &res), st, done);
        if (res.fault == KBV_FAULT_NONE) {
            for (int p = 0; p < KBV_PROTO_COUNT; p++) {
                P[p].mem_kernel_bytes = (double)peak;
                P[p].mem_baseline_bytes = base[kbv_precision_baseline(prec, p)].peak_bytes;
            }
        } else {
            note_child_fault(rec, &res, "the memory query", why, sizeof why);
        }
    }
done:
    kbv_phase_enter(&s->clock, KBV_PHASE_LOAD);   /* the runner's exit counts with its start */
    sample_child_stop(s);
    kbv_phase_clock_stop(&s->clock);
    sample_free(s);
    return st;
}
