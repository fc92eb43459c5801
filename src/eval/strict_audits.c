/* Strict's audits besides the draws and the timing: the built candidate's
 * symbols against the allowlist, and after timing the traced pass, the race
 * run and the persisting-L2 count. */
#include "eval/sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval/symbols.h"
#include "eval/trace_check.h"

#define TRACE_CALLS 3
#define RACE_CALLS 3

/* The traced pass (eval/trace_check.h): the candidate's calls again, untimed,
 * under activity tracing, on a fresh draw. Fills flag/why on a failure. */
static kbv_status traced_pass(sample *s, const char *so_path, kbv_record *rec,
                              const char **flag, char *why, size_t cap)
{
    kbv_child_result res;
    kbv_draw d = {KBV_DIST_BASE, kbv_seed_derive(s->ev->opts.run_seed, s->key, KBV_SEED_AUDIT, 0)};
    KBV_TRY(sample_fill_set(s, 0, &d));
    KBV_TRY(sample_poison_outputs(s));
    KBV_TRY(s->svc->sync(s->svc));
    KBV_TRY(kbv_child_trace_calls(s->child, 0, TRACE_CALLS, &res));
    if (res.fault != KBV_FAULT_NONE) {
        s->child_dead = true;
        note_child_fault(rec, &res, "the traced pass", why, cap);
        return KBV_OK;
    }
    s->l2_persisting += res.l2_persisting;
    sample_note_python(s, &res);
    /* a KernelBench-format file has no object of its own: its kernels are
     * its extension's, and whether they ran is protocol_python_audits' */
    const kbv_symbols *syms = NULL;
    if (!s->python)
        KBV_TRY(sample_symbols(s, so_path, &syms));
    kbv_trace_verdict v;
    kbv_trace_judge(&res.trace, syms ? &syms->functions : NULL, s->ev->opts.vendor_libs != 0,
                    &v);
    if (v.flag) {
        *flag = v.flag;
        snprintf(why, cap, "%s", v.reason);
    }
    return KBV_OK;
}

/* The race run: the same inputs RACE_CALLS times while the runner keeps the
 * GPU busy beside each call; every output must still pass the strict rule. */
static kbv_status race_run(sample *s, kbv_record *rec, double t_ms, const char **flag, char *why,
                           size_t cap)
{
    kbv_status st = KBV_OK;
    kbv_child_result res;
    refs r;
    memset(&r, 0, sizeof r);
    kbv_draw d = {KBV_DIST_BASE, kbv_seed_derive(s->ev->opts.run_seed, s->key, KBV_SEED_AUDIT, 1)};
    /* noise over about twice the call, within [0.2 ms, 2 s] */
    double us = 2e3 * (isfinite(t_ms) ? t_ms : 1.0);
    const int noise_us = (int)(us < 200 ? 200 : us > 2e6 ? 2e6 : us);
    KBV_TRY(sample_fill_set(s, 0, &d));
    KBV_TRY(sample_refs_compute(s, 0, REFS_STRICT, &r));
    for (int i = 0; i < RACE_CALLS; i++) {
        KBV_TRY_GOTO(sample_poison_outputs(s), st, done);
        KBV_TRY_GOTO(s->svc->sync(s->svc), st, done);
        /* three intensities: the noise outlasts the call by 1x, 2x, 0.5x */
        static const double scale[RACE_CALLS] = {1.0, 2.0, 0.5};
        KBV_TRY_GOTO(kbv_child_call_noisy(s->child, 0, 1, (int)(noise_us * scale[i]), &res), st,
                     done);
        s->l2_persisting += res.l2_persisting;
        sample_note_python(s, &res);
        if (res.fault != KBV_FAULT_NONE) {
            s->child_dead = true;
            note_child_fault(rec, &res, "the race run", why, cap);
            goto done;
        }
        kbv_draw_verdict v;
        KBV_TRY_GOTO(sample_judge_call(s, 0, &r, &v, NULL), st, done);
        if (!v.strict_pass) {
            *flag = "race";
            snprintf(why, cap, "race: the same inputs again, call %d of %d beside other work on "
                               "the GPU: %s", i + 1, RACE_CALLS, v.strict_reason);
            goto done;
        }
    }
done:
    sample_refs_release(s, &r);
    return st;
}

/* After strict's timing: the traced pass, the race run and the persisting-L2
 * count of every call. Each failure adds its flag; the first one's reason
 * is strict's. A fault (the runner gone) ends the audits. */
static void audit_failed(kbv_proto_result *S, const char *flag, const char *why)
{
    if (flag)
        kbv_proto_add_flag(S, flag);
    if (why[0])
        protocol_fail(S, why);
}

kbv_status protocol_strict_audits(sample *s, const char *so_path, kbv_record *rec,
                                  kbv_proto_result *S)
{
    char why[KBV_REASON_CAP + 128] = "";
    const char *flag = NULL;
    KBV_TRY(traced_pass(s, so_path, rec, &flag, why, sizeof why));
    audit_failed(S, flag, why);
    if (s->child_dead)
        return KBV_OK;
    flag = NULL;
    why[0] = '\0';
    KBV_TRY(race_run(s, rec, S->t_kernel_ms, &flag, why, sizeof why));
    audit_failed(S, flag, why);
    if (s->l2_persisting > 0) {
        snprintf(why, sizeof why, "%d calls left a persisting-L2 limit or access-policy window "
                 "set (undone before the next call)", s->l2_persisting);
        audit_failed(S, "l2-persisting", why);
    }
    return KBV_OK;
}

/* Strict audit: what the built candidate imports and exports (its dynamic
 * symbols, not its source) is on the allowlist. false with the reason. */
bool protocol_binary_allowed(sample *s, const char *so_path, char *why, size_t cap)
{
    const kbv_symbols *syms = NULL;
    if (sample_symbols(s, so_path, &syms) != KBV_OK) {
        snprintf(why, cap, "binary allowlist: cannot read the candidate's symbols: %s",
                 kbv_last_error());
        kbv_clear_error();
        return false;
    }
    kbv_symbol_policy policy = {.vendor_libs = s->ev->opts.vendor_libs};
    char reason[256];
    bool ok = kbv_symbols_allowed(syms, &policy, reason, sizeof reason);
    if (!ok)
        snprintf(why, cap, "binary allowlist: %s", reason);
    return ok;
}
