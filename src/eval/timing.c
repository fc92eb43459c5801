/* The timing phase: standard/verified's warm-cache calls and strict's
 * trials on fresh inputs with a flushed cache, each trial judged too. */
#include "eval/sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A live candidate on the base params for timing, restarting one that faulted
 * after its standard verdict was decided. "" in why when ready. */
kbv_status protocol_ready_for_timing(sample *s, const char *so_path, kbv_record *rec, char *why,
                                     size_t cap)
{
    kbv_child_result res;
    why[0] = '\0';
    if (!s->child_dead)
        return KBV_OK;
    if (s->cur_params.seed != s->plan.params.seed || s->cur_params.dist != s->plan.params.dist)
        KBV_TRY(sample_fill_params(s, &s->plan.params));
    KBV_TRY(sample_load_child(s, so_path, &res));
    if (res.fault != KBV_FAULT_NONE)
        note_child_fault(rec, &res, "restart for timing", why, cap);
    return KBV_OK;
}

/* One timing request of n calls on set `set`, taken again (after a pause) while
 * the SM clock sampled around it was throttled; *low when it stayed so. */
static kbv_status timed_request(sample *s, int set, int n, bool flush, kbv_child_result *res,
                                kbv_clock_guard *seen, bool *low)
{
    kbv_clock_guard g;
    for (int attempt = 0; attempt < KBV_CLOCK_ATTEMPTS; attempt++) {
        if (attempt > 0)
            kbv_clock_guard_recover();
        kbv_clock_guard_begin(&g);
        kbv_clock_guard_sample(&g, s->svc);
        KBV_TRY(sample_child_call(s, set, n, flush, res));
        kbv_clock_guard_sample(&g, s->svc);
        if (res->fault != KBV_FAULT_NONE || !kbv_clock_guard_low(&g))
            break;
    }
    *low = kbv_clock_guard_low(&g);
    if (g.samples && (seen->samples == 0 || g.min_mhz < seen->min_mhz))
        seen->min_mhz = g.min_mhz;
    seen->max_mhz = g.max_mhz > seen->max_mhz ? g.max_mhz : seen->max_mhz;
    seen->samples += g.samples;
    return KBV_OK;
}

/* standard/verified: warm cache, set 0 with a base draw, 3 warm-ups and at
 * least KBV_WARMUP_MIN_MS of them, 100 timed. */
kbv_status protocol_time_standard(sample *s, kbv_record *rec, std_timing *out, char *why,
                                  size_t cap)
{
    kbv_status st = KBV_OK;
    kbv_child_result res;
    double *ms = calloc(KBV_STD_TIMED, sizeof *ms);
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (!ms)
        return kbv_fail(KBV_ERR_NOMEM, "timing buffer");
    KBV_TRY_GOTO(sample_fill_set(s, 0, &s->plan.d[0].draw), st, done);
    KBV_TRY_GOTO(sample_child_call(s, 0, KBV_STD_WARMUP, false, &res), st, done);
    if (res.fault != KBV_FAULT_NONE) {
        note_child_fault(rec, &res, "warm-up", why, cap);
        goto done;
    }
    /* requests sized from the warm-ups so each stays well inside its deadline */
    double warm = 0;
    for (int i = 0; i < res.n_times; i++)
        warm = fmax(warm, res.times_ms[i]);
    int warm_runs = res.n_times;
    double warm_wall = res.wall_ms;
    while (!kbv_warmup_enough(warm_runs, KBV_STD_WARMUP, warm_wall)) {
        double per_call = fmax(warm_wall / warm_runs, 1e-3);
        double want = ceil((KBV_WARMUP_MIN_MS - warm_wall) / per_call);
        int n = want < 1 ? 1 : want < KBV_CHILD_MAX_CALLS ? (int)want : KBV_CHILD_MAX_CALLS;
        if (n > KBV_WARMUP_MAX_RUNS - warm_runs)
            n = KBV_WARMUP_MAX_RUNS - warm_runs;
        if (warm > 0 && n * warm > 0.25 * s->ev->opts.call_timeout_s * 1e3)
            n = (int)fmax(1, 0.25 * s->ev->opts.call_timeout_s * 1e3 / warm);
        KBV_TRY_GOTO(sample_child_call(s, 0, n, false, &res), st, done);
        if (res.fault != KBV_FAULT_NONE) {
            note_child_fault(rec, &res, "warm-up", why, cap);
            goto done;
        }
        warm_runs += n;
        warm_wall += res.wall_ms;
    }
    int per_request = KBV_CHILD_MAX_CALLS;
    if (warm > 0) {
        double fit = 0.25 * s->ev->opts.call_timeout_s * 1e3 / warm;
        per_request = fit < 1 ? 1 : fit < KBV_CHILD_MAX_CALLS ? (int)fit : KBV_CHILD_MAX_CALLS;
    }
    int done_calls = 0;
    while (done_calls < KBV_STD_TIMED) {
        int n = KBV_STD_TIMED - done_calls < per_request ? KBV_STD_TIMED - done_calls
                                                         : per_request;
        bool low = false;
        KBV_TRY_GOTO(timed_request(s, 0, n, false, &res, &out->clock, &low), st, done);
        out->throttled |= low;
        if (res.fault != KBV_FAULT_NONE) {
            note_child_fault(rec, &res, "timing", why, cap);
            goto done;
        }
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += res.times_ms[i];
        if (!kbv_timing_credible(sum, res.wall_ms)) {
            snprintf(why, cap, "timing not credible: %d calls reported %.3f ms in total, the "
                               "request took %.3f ms", n, sum, res.wall_ms);
            goto done;
        }
        memcpy(ms + done_calls, res.times_ms, (size_t)n * sizeof *ms);
        done_calls += n;
    }
    kbv_time_stats_of(ms, KBV_STD_TIMED, &out->st);
    out->ok = true;
done:
    free(ms);
    return st;
}

/* strict: fresh inputs every trial (full redraw into alternating sets, and
 * every third trial a few elements changed in place), cache flushed, one
 * call, and every timed output judged by the strict rule. */
kbv_status protocol_time_strict(sample *s, kbv_record *rec, strict_timing *out, char *why,
                                size_t cap)
{
    kbv_status st = KBV_OK;
    kbv_child_result res;
    refs r;
    memset(&r, 0, sizeof r);
    int trials = s->ev->opts.strict_trials;
    double *ms = calloc((size_t)trials, sizeof *ms);
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (!ms)
        return kbv_fail(KBV_ERR_NOMEM, "timing buffer");
    int prev = 0;
    for (int t = 0; t < trials; t++) {
        int set;
        if (t % 3 == 2 && s->perturbable >= 0) {
            set = prev;
            KBV_TRY_GOTO(sample_perturb(s, set, kbv_seed_derive(s->ev->opts.run_seed, s->key,
                                                                KBV_SEED_PERTURB, (uint32_t)t)),
                         st, done);
        } else {
            set = t % N_SETS;
            kbv_draw d = {KBV_DIST_BASE, kbv_seed_derive(s->ev->opts.run_seed, s->key,
                                                         KBV_SEED_TRIAL, (uint32_t)t)};
            KBV_TRY_GOTO(sample_fill_set(s, set, &d), st, done);
        }
        prev = set;
        KBV_TRY_GOTO(sample_poison_outputs(s), st, done);
        bool low = false;
        KBV_TRY_GOTO(timed_request(s, set, 1, true, &res, &out->clock, &low), st, done);
        out->throttled |= low;
        char when[48];
        snprintf(when, sizeof when, "timed trial %d", t);
        if (res.fault != KBV_FAULT_NONE) {
            note_child_fault(rec, &res, when, why, cap);
            goto done;
        }
        if (!kbv_timing_credible(res.times_ms[0], res.wall_ms)) {
            snprintf(why, cap, "timing not credible: %s reported %.3f ms, the request took "
                               "%.3f ms", when, res.times_ms[0], res.wall_ms);
            goto done;
        }
        ms[t] = res.times_ms[0];
        KBV_TRY_GOTO(sample_refs_compute(s, set, REFS_STRICT, &r), st, done);
        kbv_draw_verdict v;
        KBV_TRY_GOTO(sample_judge_call(s, set, &r, &v, NULL), st, done);
        sample_refs_release(s, &r);
        if (!v.strict_pass) {
            snprintf(why, cap, "%s: %s", when, v.strict_reason);
            goto done;
        }
    }
    kbv_time_stats_of(ms, trials, &out->st);
    out->ok = true;
done:
    sample_refs_release(s, &r);
    free(ms);
    return st;
}
