#include "eval/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double kbv_rel_l2(double sq_err, double sq_ref)
{
    if (sq_err == 0.0)
        return 0.0;
    if (sq_ref == 0.0)
        return INFINITY;
    return sqrt(sq_err / sq_ref);
}

double kbv_allclose_tol(kbv_dtype dt)
{
    return (dt == KBV_F16 || dt == KBV_BF16) ? 1e-2 : 1e-3;
}

double kbv_strict_floor(kbv_dtype dt)
{
    return KBV_STRICT_FLOOR_OF_TOL * kbv_allclose_tol(dt);
}

double kbv_leaderboard_stored_tol(kbv_dtype dt)
{
    return (dt == KBV_F16 || dt == KBV_BF16) ? 1e-2 : 1e-4;
}

const char *kbv_fmt_sci(double x, int decimals, char *buf, size_t cap)
{
    if (isnan(x)) {
        snprintf(buf, cap, "nan");
        return buf;
    }
    if (isinf(x)) {
        snprintf(buf, cap, "%sinf", x < 0 ? "-" : "");
        return buf;
    }
    char raw[48];
    snprintf(raw, sizeof raw, "%.*e", decimals < 0 ? 0 : decimals, x);
    /* "3.1e-02" -> "3.1e-2", "1.0e+00" -> "1.0e0" */
    char *e = strchr(raw, 'e');
    if (!e) {
        snprintf(buf, cap, "%s", raw);
        return buf;
    }
    *e = '\0';
    const char *exp = e + 1;
    bool neg = *exp == '-';
    if (*exp == '-' || *exp == '+')
        exp++;
    while (exp[0] == '0' && exp[1] != '\0')
        exp++;
    snprintf(buf, cap, "%se%s%s", raw, neg ? "-" : "", exp);
    return buf;
}

/* Row-major multi-index of flat index i in tensor t. */
static int unravel(const kbv_tensor *t, int64_t i, int64_t *idx)
{
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t len = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = i % len;
        i /= len;
    }
    return t->ndim;
}

static void fmt_index(const kbv_tensor *t, int64_t flat, char *buf, size_t cap)
{
    int64_t idx[KBV_MAX_DIMS];
    int nd = unravel(t, flat, idx);
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < nd && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", d ? "," : "",
                                 (long long)idx[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
}

/* "output 'y': " when there are several outputs, else "". */
static void output_prefix(const kbv_judge_input *in, int k, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (in->n_outputs > 1)
        snprintf(buf, cap, "output '%s': ", in->outputs[k].name ? in->outputs[k].name : "?");
}

static void std_reason(const kbv_judge_input *in, int k, char *out, size_t cap)
{
    const kbv_compare_stats *c = &in->cand[k];
    char pre[96], tol[16], where[96] = "", extra[96] = "";
    output_prefix(in, k, pre, sizeof pre);
    kbv_fmt_sci(in->tol, 0, tol, sizeof tol);
    if (c->allclose_first >= 0) {
        char idx[80];
        fmt_index(&in->outputs[k], c->allclose_first, idx, sizeof idx);
        snprintf(where, sizeof where, ", first at %s", idx);
    }
    if (c->poison_left > 0)
        snprintf(extra, sizeof extra, "; %lld never written", (long long)c->poison_left);
    else if (c->cand_nonfinite > 0)
        snprintf(extra, sizeof extra, "; %lld NaN/inf", (long long)c->cand_nonfinite);
    snprintf(out, cap, "%s%lld of %lld elements outside atol/rtol %s (max |diff| %.3g%s%s)", pre,
             (long long)c->allclose_fail, (long long)c->n, tol, c->max_abs_diff, where, extra);
}

/* The strict rule on output k; returns true when it passes, else writes why. */
static bool strict_output(const kbv_judge_input *in, int k, double *rel, double *budget_rel,
                          double *maxe, double *budget_max, char *out, size_t cap)
{
    const kbv_compare_stats *c = &in->cand[k], *t = &in->tf32[k];
    char pre[96], a[32], b[32];
    output_prefix(in, k, pre, sizeof pre);
    *rel = kbv_rel_l2(c->sq_err, c->sq_ref);
    const double floor = kbv_strict_floor(in->outputs[k].dtype);
    *budget_rel = KBV_STRICT_FACTOR * fmax(kbv_rel_l2(t->sq_err, t->sq_ref), floor);
    *maxe = c->max_err;
    *budget_max = KBV_STRICT_FACTOR * fmax(t->max_err, floor * c->max_ref);
    if (c->poison_left > 0) {
        snprintf(out, cap, "%soutput not fully written: %lld elements", pre,
                 (long long)c->poison_left);
        return false;
    }
    if (c->class_fail > 0) {
        char idx[80] = "?";
        if (c->strict_first >= 0)
            fmt_index(&in->outputs[k], c->strict_first, idx, sizeof idx);
        snprintf(out, cap,
                 "%s%lld elements differ from the truth in class (not finite where it is finite, "
                 "or finite where it overflows the output type), first at %s",
                 pre, (long long)c->class_fail, idx);
        return false;
    }
    if (!(*rel <= *budget_rel)) {
        snprintf(out, cap, "%srel L2 error %s > budget %s", pre, kbv_fmt_sci(*rel, 1, a, sizeof a),
                 kbv_fmt_sci(*budget_rel, 1, b, sizeof b));
        return false;
    }
    if (!(*maxe <= *budget_max)) {
        snprintf(out, cap, "%smax |error| %s > budget %s", pre, kbv_fmt_sci(*maxe, 1, a, sizeof a),
                 kbv_fmt_sci(*budget_max, 1, b, sizeof b));
        return false;
    }
    return true;
}

/* How far an output is into its budget (> 1: over). */
static double budget_use(double rel, double budget_rel, double maxe, double budget_max)
{
    double u1 = budget_rel > 0 ? rel / budget_rel : (rel > 0 ? INFINITY : 0);
    double u2 = budget_max > 0 ? maxe / budget_max : (maxe > 0 ? INFINITY : 0);
    if (isnan(u1))
        u1 = INFINITY;
    if (isnan(u2))
        u2 = INFINITY;
    return fmax(u1, u2);
}

static void set_first_bad(kbv_draw_verdict *v, const kbv_tensor *t, int64_t flat)
{
    v->first_bad_ndim = unravel(t, flat, v->first_bad);
}

/* allclose against the fp32 reference on every output: *skipped when the
 * reference is not finite; else the first failing output's reason and
 * index (*bad_output, -1 when all pass). */
static bool judge_allclose(const kbv_judge_input *in, bool *skipped, char *reason, size_t cap,
                           int *bad_output)
{
    *skipped = false;
    *bad_output = -1;
    reason[0] = '\0';
    for (int k = 0; k < in->n_outputs; k++)
        if (in->cand[k].ref_nonfinite > 0)
            *skipped = true;
    if (*skipped)
        return false;
    for (int k = 0; k < in->n_outputs; k++)
        if (in->cand[k].allclose_fail > 0) {
            std_reason(in, k, reason, cap);
            *bad_output = k;
            return false;
        }
    return true;
}

void kbv_judge_draw(const kbv_judge_input *in, kbv_draw_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->first_bad_ndim = -1;
    v->strict_pass = true;
    double worst_use = -1.0;
    for (int k = 0; k < in->n_outputs; k++) {
        const kbv_compare_stats *c = &in->cand[k];
        v->n += c->n;
        v->allclose_fail += c->allclose_fail;
        v->unjudged += c->unjudged;
        v->oracle_nonfinite += c->oracle_nonfinite;
        v->poison_left += c->poison_left;
        if (c->max_abs_diff > v->max_abs_diff || isnan(c->max_abs_diff))
            v->max_abs_diff = c->max_abs_diff;
    }
    int bad;
    v->std_pass = judge_allclose(in, &v->std_skipped, v->std_reason, sizeof v->std_reason, &bad);
    if (bad >= 0 && in->cand[bad].allclose_first >= 0)
        set_first_bad(v, &in->outputs[bad], in->cand[bad].allclose_first);
    if (!in->tf32) {   /* strict's references were not computed */
        v->strict_skipped = true;
        v->strict_pass = false;
        v->rel_l2 = v->budget_rel_l2 = v->max_err = v->budget_max_err = NAN;
        snprintf(v->strict_reason, sizeof v->strict_reason, "not judged (strict not evaluated)");
        return;
    }
    /* strict: integrity first, then each output's class and error budget */
    if (in->integrity) {
        v->strict_pass = false;
        snprintf(v->strict_reason, sizeof v->strict_reason, "%s", in->integrity);
    }
    for (int k = 0; k < in->n_outputs; k++) {
        double rel, brel, maxe, bmax;
        char why[KBV_REASON_CAP];
        bool ok = strict_output(in, k, &rel, &brel, &maxe, &bmax, why, sizeof why);
        double use = budget_use(rel, brel, maxe, bmax);
        if (use > worst_use) {
            worst_use = use;
            v->rel_l2 = rel;
            v->budget_rel_l2 = brel;
            v->max_err = maxe;
            v->budget_max_err = bmax;
        }
        if (!ok && v->strict_pass) {
            v->strict_pass = false;
            snprintf(v->strict_reason, sizeof v->strict_reason, "%s", why);
            const kbv_compare_stats *c = &in->cand[k];
            if (v->first_bad_ndim < 0 && c->class_fail > 0 && c->strict_first >= 0)
                set_first_bad(v, &in->outputs[k], c->strict_first);
        }
    }
}

void kbv_judge_stored(const kbv_judge_input *in, kbv_stored_draw *d)
{
    memset(d, 0, sizeof *d);
    int bad;
    d->pass = judge_allclose(in, &d->skipped, d->reason, sizeof d->reason, &bad);
    for (int k = 0; k < in->n_outputs; k++) {
        const kbv_compare_stats *c = &in->cand[k];
        /* torch.max propagates NaN; |finite - inf| is inf */
        double diff = c->cand_nan > 0 ? NAN : c->cand_nonfinite > 0 ? INFINITY : c->max_abs_diff;
        if (isnan(diff) || diff > d->max_diff)
            d->max_diff = diff;   /* once NaN, nothing is greater */
    }
}

void kbv_tally_fail(kbv_tally *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    t->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->reason, sizeof t->reason, fmt, ap);
    va_end(ap);
}

void kbv_tally_add_std(kbv_tally *t, const char *label, const kbv_draw_verdict *v)
{
    t->total++;
    if (v->std_skipped)
        t->skipped++;
    else if (v->std_pass)
        t->passed++;
    else
        kbv_tally_fail(t, "%s: %s", label, v->std_reason);
}

void kbv_tally_add_strict(kbv_tally *t, const char *label, const kbv_draw_verdict *v)
{
    t->total++;
    if (v->strict_pass)
        t->passed++;
    else
        kbv_tally_fail(t, "%s: %s", label, v->strict_reason);
}

bool kbv_tally_correct(kbv_tally *t)
{
    if (t->failed)
        return false;
    if (t->passed == 0) {
        if (t->skipped > 0)
            kbv_tally_fail(t, "no draw could be judged: the fp32 reference is not finite on "
                              "all %d", t->skipped);
        else
            kbv_tally_fail(t, "no draw was judged");
        return false;
    }
    return true;
}

void kbv_gate_add_standard(kbv_gate_tally *t, const char *label, const kbv_stored_draw *d)
{
    t->stored.total++;
    if (d->skipped) {
        t->stored.skipped++;
        return;
    }
    if (d->pass) {
        t->stored.passed++;
        return;
    }
    kbv_tally_fail(&t->stored, "%s: %s", label, d->reason);
    t->std_failed = true;
    /* metadata["max_difference"] holds f"{max_diff:.6f}"; the leaderboard
     * takes max(float(d) for d in it): the first, then each one greater
     * (a NaN is never greater, so one after the first is passed over) */
    char text[64];
    snprintf(text, sizeof text, "%.6f", d->max_diff);
    double v = strtod(text, NULL);
    if (t->n_diffs++ == 0 || v > t->max_diff)
        t->max_diff = v;
}

void kbv_gate_add_hidden(kbv_gate_tally *t, const char *label, const kbv_stored_draw *d)
{
    if (t->std_failed)
        return;   /* the hidden configs ran only after the standard draws passed */
    t->stored.total++;
    if (d->skipped)
        t->stored.skipped++;
    else if (d->pass)
        t->stored.passed++;
    else
        kbv_tally_fail(&t->stored, "%s: %s", label, d->reason);
}

void kbv_gate_fault(kbv_gate_tally *t, bool in_standard, const char *why)
{
    if (in_standard)
        t->std_fault = true;
    else if (t->std_failed)
        return;   /* a hidden config that never ran cannot crash */
    kbv_tally_fail(&t->stored, "%s", why);
}

bool kbv_gate_correct(kbv_gate_tally *t, double promote_below, bool *promoted, char *note,
                      size_t cap)
{
    *promoted = false;
    note[0] = '\0';
    if (t->std_failed && !t->std_fault && t->n_diffs > 0 && t->max_diff < promote_below) {
        char a[32], b[32];
        *promoted = true;
        snprintf(note, cap, "promoted by the leaderboard gate: the standard draws that failed "
                            "(first %s) did so by a max |diff| of %s < %s; the hidden configs not "
                            "judged",
                 t->stored.reason, kbv_fmt_sci(t->max_diff, 2, a, sizeof a),
                 kbv_fmt_sci(promote_below, 0, b, sizeof b));
        return true;
    }
    return kbv_tally_correct(&t->stored);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted s[0..n-1], linear interpolation between order statistics. */
static double quantile(const double *s, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - lo;
    return s[lo] + (s[hi] - s[lo]) * frac;
}

void kbv_time_stats_of(const double *ms, int n, kbv_time_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    if (n <= 0) {
        st->mean = st->sd = st->median = st->q1 = st->q3 = st->iqr = NAN;
        return;
    }
    for (int i = 0; i < n; i++)
        st->sum += ms[i];
    st->mean = st->sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (ms[i] - st->mean) * (ms[i] - st->mean);
    st->sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) {
        /* Without scratch the order statistics cannot be had; say so with NaN. */
        st->median = st->q1 = st->q3 = st->iqr = NAN;
        return;
    }
    memcpy(s, ms, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    st->median = quantile(s, n, 0.5);
    st->q1 = quantile(s, n, 0.25);
    st->q3 = quantile(s, n, 0.75);
    st->iqr = st->q3 - st->q1;
    free(s);
}

bool kbv_timing_credible(double sum_reported_ms, double wall_ms)
{
    return wall_ms >= sum_reported_ms;
}

bool kbv_below_sol(double t_ms, double sol_ms)
{
    return sol_ms > 0 && t_ms < KBV_SOL_MARGIN * sol_ms;
}
