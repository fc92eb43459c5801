#include "eval/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/configs.h"

/* The base parameters stay fixed across draws, as the paper's module's do. */
#define BASE_PARAM_SEED 0x5eedULL
/* Seed mixes: D5's redrawn parameters, and an input redrawn alone. */
#define D5_PARAM_SEED_MIX 0xD5A5A5A5D5A5A5A5ULL
#define REDRAW_SEED_MIX 0x9E3779B97F4A7C15ULL

/* One problem's tensors, laid out as sample_arena.c lays out a sample's: inputs
 * and params in their own dtypes in the services backend's memory (every
 * fp32 mode runs on them), and the oracle's float64 copies of them. */
typedef struct audit_state {
    kbv_backend *const *be;                     /* indexed by kbv_mode */
    kbv_backend *svc;                           /* fills and comparisons: the fp32 backend */
    const kbv_graph *g;
    /* [n_inputs], [n_params] and [n_outputs] each, allocated by state_init */
    kbv_tensor *in, *par;
    kbv_tensor *in64, *par64;
    bool *in64_owned, *par64_owned;             /* else shared (integer) */
    kbv_tensor *outputs;                        /* shapes, dtypes and names, for the judge */
    kbv_tensor *alt_out;                        /* the oracle's outputs on a redrawn input */
    kbv_tensor zeros;                           /* an all-zero first output, when it is float */
    bool float_out, copy_fits;
    bool have_first;                            /* first is set */
    kbv_tensor first;                           /* the first draw's oracle output (a copy) */
    double tol;                                 /* what "no difference" allows: DEGENERATE_REL
                                                   x max(1, max |first|) */
    bool varies, *depends;                      /* [n_inputs] */
    int trivial_judged;                         /* base draws the trivial outputs were judged on */
} audit_state;

/* One draw's outputs of every mode, kept on the device for the comparisons;
 * out[m] has room for the graph's outputs (mode_outputs_init). */
typedef struct mode_outputs {
    kbv_tensor *out[KBV_MODE_COUNT];
    bool have[KBV_MODE_COUNT];
} mode_outputs;

static kbv_status mode_outputs_init(mode_outputs *o, const kbv_graph *g)
{
    memset(o, 0, sizeof *o);
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        if (!(o->out[m] = calloc((size_t)g->n_outputs + 1, sizeof *o->out[m])))
            return kbv_fail(KBV_ERR_NOMEM, "audit: outputs of %d", g->n_outputs);
    return KBV_OK;
}

static kbv_status tensor_alloc(kbv_backend *be, const kbv_value *v, kbv_dtype dtype, kbv_tensor *t)
{
    kbv_value_tensor(v, t);
    t->dtype = dtype;
    size_t bytes = kbv_tensor_bytes(t);
    return be->alloc(be, bytes ? bytes : 1, &t->data);
}

/* t's float64 copy for the oracle; integer tensors are shared as they are. */
static kbv_status twin_alloc(audit_state *a, const kbv_tensor *t, kbv_tensor *t64, bool *owned)
{
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    *t64 = *t;
    if (!kbv_dtype_is_float(t->dtype))
        return KBV_OK;
    t64->dtype = KBV_F64;
    t64->data = NULL;
    size_t bytes = kbv_tensor_bytes(t64);
    void *p = NULL;
    KBV_TRY(be64->alloc(be64, bytes ? bytes : 1, &p));
    t64->data = p;
    *owned = true;
    return KBV_OK;
}

static void release_outputs(kbv_backend *be, const kbv_graph *g, kbv_tensor *t)
{
    for (int k = 0; k < g->n_outputs; k++)
        if (t[k].data)
            be->release(be, t[k].data);
}

static void release_mode(audit_state *a, kbv_mode m, mode_outputs *o)
{
    if (o->have[m])
        release_outputs(a->be[m], a->g, o->out[m]);
    o->have[m] = false;
}

/* ---- filling ------------------------------------------------------------ */

/* Input i under draw d, and its float64 copy. */
static kbv_status fill_input(audit_state *a, int i, const kbv_draw *d)
{
    const kbv_graph *g = a->g;
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    KBV_TRY(a->svc->fill(a->svc, &g->def->inputs[g->values[i].def_index], g->values[i].def_index,
                         d, &a->in[i]));
    /* the other backends' streams read what this one wrote */
    KBV_TRY(a->svc->sync(a->svc));
    if (a->in64_owned[i]) {
        KBV_TRY(be64->convert(be64, &a->in[i], &a->in64[i]));
        KBV_TRY(be64->sync(be64));
    }
    return KBV_OK;
}

static kbv_status fill_inputs(audit_state *a, const kbv_draw *d)
{
    for (int i = 0; i < a->g->n_inputs; i++)
        KBV_TRY(fill_input(a, i, d));
    return KBV_OK;
}

/* Params from draw d (base, or D5's redraw) and their float64 copies. */
static kbv_status fill_params(audit_state *a, const kbv_draw *d)
{
    const kbv_graph *g = a->g;
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    for (int j = 0; j < g->n_params; j++)
        KBV_TRY(a->svc->fill_param(a->svc, g, j, d, &a->par[j]));
    KBV_TRY(a->svc->sync(a->svc));
    for (int j = 0; j < g->n_params; j++)
        if (a->par64_owned[j])
            KBV_TRY(be64->convert(be64, &a->par[j], &a->par64[j]));
    KBV_TRY(be64->sync(be64));
    return KBV_OK;
}

static const kbv_draw base_params = {KBV_DIST_BASE, BASE_PARAM_SEED};

/* ---- the state ---------------------------------------------------------- */

static void state_free(audit_state *a)
{
    if (!a)
        return;
    kbv_backend *be64 = a->be ? a->be[KBV_MODE_FP64] : NULL;
    int n_in = a->g && a->in && a->in64 && a->in64_owned ? a->g->n_inputs : 0;
    int n_par = a->g && a->par && a->par64 && a->par64_owned ? a->g->n_params : 0;
    for (int i = 0; i < n_in; i++) {
        if (a->in64_owned[i])
            be64->release(be64, a->in64[i].data);
        if (a->in[i].data)
            a->svc->release(a->svc, a->in[i].data);
    }
    for (int j = 0; j < n_par; j++) {
        if (a->par64_owned[j])
            be64->release(be64, a->par64[j].data);
        if (a->par[j].data)
            a->svc->release(a->svc, a->par[j].data);
    }
    free(a->in);
    free(a->par);
    free(a->in64);
    free(a->par64);
    free(a->in64_owned);
    free(a->par64_owned);
    free(a->outputs);
    free(a->alt_out);
    free(a->depends);
    if (a->zeros.data)
        a->svc->release(a->svc, a->zeros.data);
    if (a->first.data)
        a->be[KBV_MODE_FP64]->release(a->be[KBV_MODE_FP64], a->first.data);
    free(a);
}

/* An all-zero tensor shaped like the first output, in the fp32 reference's dtype. */
static kbv_status zeros_make(audit_state *a, const kbv_value *ov)
{
    KBV_TRY(tensor_alloc(a->svc, ov, a->svc->float_dtype, &a->zeros));
    size_t bytes = kbv_tensor_bytes(&a->zeros);
    void *z = calloc(1, bytes ? bytes : 1);
    if (!z)
        return kbv_fail(KBV_ERR_NOMEM, "audit: %zu bytes of zeros", bytes);
    kbv_status st = a->svc->from_host(a->svc, a->zeros.data, z, bytes);
    free(z);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Allocates every tensor and fills the base params; state_free undoes a partial one. */
static kbv_status state_init(audit_state *a, kbv_backend *const be[KBV_MODE_COUNT],
                             const kbv_graph *g)
{
    a->be = be;
    a->svc = be[KBV_MODE_FP32];
    a->g = g;
    size_t ni = (size_t)g->n_inputs + 1, np = (size_t)g->n_params + 1;
    size_t no = (size_t)g->n_outputs + 1;
    a->in = calloc(ni, sizeof *a->in);
    a->in64 = calloc(ni, sizeof *a->in64);
    a->in64_owned = calloc(ni, sizeof *a->in64_owned);
    a->depends = calloc(ni, sizeof *a->depends);
    a->par = calloc(np, sizeof *a->par);
    a->par64 = calloc(np, sizeof *a->par64);
    a->par64_owned = calloc(np, sizeof *a->par64_owned);
    a->outputs = calloc(no, sizeof *a->outputs);
    a->alt_out = calloc(no, sizeof *a->alt_out);
    if (!a->in || !a->in64 || !a->in64_owned || !a->depends || !a->par || !a->par64 ||
        !a->par64_owned || !a->outputs || !a->alt_out)
        return kbv_fail(KBV_ERR_NOMEM, "audit: tensors of %d params", g->n_params);
    for (int i = 0; i < g->n_inputs; i++) {
        KBV_TRY(tensor_alloc(a->svc, &g->values[i], g->def->inputs[g->values[i].def_index].dtype,
                             &a->in[i]));
        KBV_TRY(twin_alloc(a, &a->in[i], &a->in64[i], &a->in64_owned[i]));
    }
    for (int j = 0; j < g->n_params; j++) {
        const kbv_value *v = &g->values[g->n_inputs + j];
        KBV_TRY(tensor_alloc(a->svc, v, g->def->params[v->def_index].dtype, &a->par[j]));
        KBV_TRY(twin_alloc(a, &a->par[j], &a->par64[j], &a->par64_owned[j]));
    }
    KBV_TRY(fill_params(a, &base_params));
    for (int k = 0; k < g->n_outputs; k++)
        kbv_value_tensor(&g->values[g->outputs[k]], &a->outputs[k]);
    const kbv_value *ov = &g->values[g->outputs[0]];
    const kbv_value *iv = &g->values[0];
    a->float_out = kbv_dtype_is_float(ov->dtype);
    a->copy_fits = g->n_inputs > 0 && a->float_out && kbv_dtype_is_float(iv->dtype) &&
                   kbv_value_numel(iv) == kbv_value_numel(ov);
    if (a->float_out)
        KBV_TRY(zeros_make(a, ov));
    return KBV_OK;
}

/* ---- one draw ----------------------------------------------------------- */

/* Runs mode m (the oracle on the float64 copies) and waits for it: the
 * comparisons run on the services backend. */
static kbv_status run_mode(audit_state *a, kbv_mode m, mode_outputs *o)
{
    kbv_backend *be = a->be[m];
    bool oracle = m == KBV_MODE_FP64;
    KBV_TRY(kbv_graph_run(a->g, be, oracle ? a->in64 : a->in, oracle ? a->par64 : a->par,
                          o->out[m]));
    o->have[m] = true;
    KBV_TRY(be->sync(be));
    return KBV_OK;
}

/* Degenerate means numerically so: an output that moves by no more than
 * float64 rounding (DEGENERATE_REL of its scale) when the inputs are drawn
 * anew is constant, as L2/23's mean of a group norm is (exactly 0, ~1e-17 in
 * float64), however its last bits move; exact comparisons would miss it. */
#define DEGENERATE_REL 1e-9

/* The spread (max - min) and the largest magnitude of a float64 or float32
 * output, on the host (one copy per problem: the first draw's). */
static kbv_status oracle_range(audit_state *a, const kbv_tensor *t, double *spread, double *scale)
{
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    size_t bytes = kbv_tensor_bytes(t), es = kbv_dtype_size(t->dtype);
    char *host = malloc(bytes ? bytes : 1);
    if (!host)
        return kbv_fail(KBV_ERR_NOMEM, "audit: %zu bytes", bytes);
    kbv_status st = be64->to_host(be64, host, t->data, bytes);
    double lo = INFINITY, hi = -INFINITY, big = 0;
    bool nonfinite = false;
    for (size_t k = 0; st == KBV_OK && k < bytes; k += es) {
        double v = t->dtype == KBV_F64   ? *(const double *)(host + k)
                   : t->dtype == KBV_F32 ? *(const float *)(host + k)
                   : t->dtype == KBV_I64 ? (double)*(const int64_t *)(host + k)
                                         : 0.0;
        if (!isfinite(v)) {
            nonfinite = true;
            continue;
        }
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        big = fmax(big, fabs(v));
    }
    free(host);
    *spread = nonfinite ? INFINITY : hi >= lo ? hi - lo : 0.0;
    *scale = big;
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Whether two oracle outputs differ by more than a->tol anywhere (a NaN
 * where the other is finite differs). */
static kbv_status oracle_differs(audit_state *a, const kbv_tensor *x, const kbv_tensor *y,
                                 bool *differs)
{
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    kbv_compare_stats cs;
    KBV_TRY(be64->compare(be64, x, y, NULL, NULL, a->tol, 0.0, &cs));
    *differs = cs.allclose_fail > 0;
    return KBV_OK;
}

/* The degenerate checks on draw d, under the base params: does the oracle's
 * first output vary, and does it move when one input alone is redrawn? */
static kbv_status check_degenerate(audit_state *a, const kbv_draw *d, const kbv_tensor *oracle0)
{
    kbv_status st = KBV_OK;
    const kbv_graph *g = a->g;
    kbv_backend *be64 = a->be[KBV_MODE_FP64];
    kbv_tensor *alt_out = a->alt_out;
    bool have_alt = false;
    if (!a->have_first) {
        double spread, scale;
        KBV_TRY_GOTO(oracle_range(a, oracle0, &spread, &scale), st, done);
        a->tol = DEGENERATE_REL * fmax(1.0, scale);
        a->varies = !(spread <= a->tol);
        a->first = *oracle0;
        KBV_TRY_GOTO(be64->alloc(be64, kbv_tensor_bytes(oracle0), &a->first.data), st, done);
        KBV_TRY_GOTO(be64->copy(be64, a->first.data, oracle0->data, kbv_tensor_bytes(oracle0)), st,
                     done);
        a->have_first = true;
    } else if (!a->varies) {
        bool differs = false;
        KBV_TRY_GOTO(oracle_differs(a, oracle0, &a->first, &differs), st, done);
        a->varies = differs;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_input_def *in = &g->def->inputs[g->values[i].def_index];
        if (a->depends[i] || in->gen == KBV_GEN_SCALAR)
            continue;
        kbv_draw other = {d->dist, d->seed ^ REDRAW_SEED_MIX, d->extra};
        KBV_TRY_GOTO(fill_input(a, i, &other), st, done);
        KBV_TRY_GOTO(kbv_graph_run(g, be64, a->in64, a->par64, alt_out), st, done);
        have_alt = true;
        KBV_TRY_GOTO(be64->sync(be64), st, done);
        bool differs = false;
        KBV_TRY_GOTO(oracle_differs(a, &alt_out[0], oracle0, &differs), st, done);
        release_outputs(be64, g, alt_out);
        have_alt = false;
        a->depends[i] = differs;
        KBV_TRY_GOTO(fill_input(a, i, d), st, done);
    }
done:
    if (have_alt)
        release_outputs(be64, g, alt_out);
    return st;
}

/* The tf32 baseline's outputs judged as a candidate's: each output compared
 * with the fp32 reference, the oracle and fp32-strict as judge_call.c's
 * compare_all does, then kbv_judge_draw (the baseline is its own tf32). */
static kbv_status judge_tf32(audit_state *a, const mode_outputs *o, kbv_draw_verdict *v)
{
    kbv_status st = KBV_OK;
    kbv_compare_stats *tf32 = calloc((size_t)a->g->n_outputs + 1, sizeof *tf32);
    if (!tf32)
        return kbv_fail(KBV_ERR_NOMEM, "audit: comparisons of %d outputs", a->g->n_outputs);
    for (int k = 0; k < a->g->n_outputs; k++) {
        double tol = kbv_allclose_tol(a->outputs[k].dtype);
        KBV_TRY_GOTO(a->svc->compare(a->svc, &o->out[KBV_MODE_TF32][k],
                                     &o->out[KBV_MODE_FP32][k], &o->out[KBV_MODE_FP64][k],
                                     &o->out[KBV_MODE_FP32_STRICT][k], tol, tol, &tf32[k]),
                     st, done);
    }
    kbv_judge_input in = {.n_outputs = a->g->n_outputs, .outputs = a->outputs, .cand = tf32,
                          .tf32 = tf32, .tol = kbv_allclose_tol(a->outputs[0].dtype),
                          .integrity = NULL};
    kbv_judge_draw(&in, v);
done:
    free(tf32);
    return st;
}

/* Counts one draw on a gate; the first failure's reason is kept with its label. */
static void gate_add(kbv_audit_gate *gate, const char *label, bool skipped, bool pass,
                     const char *reason)
{
    if (skipped) {
        gate->skipped++;
        return;
    }
    gate->judged++;
    if (!pass && gate->failed++ == 0)
        snprintf(gate->first_failure, sizeof gate->first_failure, "%s: %s", label, reason);
}

/* The paper's weak-test question on a base draw: would an all-zero output,
 * or a copy of input 0, pass allclose against the fp32 reference? A draw
 * whose reference is not finite is skipped, as the protocols skip it. */
static kbv_status check_trivial(audit_state *a, const kbv_tensor *ref, kbv_audit_result *out)
{
    double tol = kbv_allclose_tol(a->outputs[0].dtype);
    kbv_compare_stats cs;
    KBV_TRY(a->svc->compare(a->svc, &a->zeros, ref, NULL, NULL, tol, tol, &cs));
    if (cs.ref_nonfinite > 0)
        return KBV_OK;
    a->trivial_judged++;
    out->zeros_pass &= cs.allclose_fail == 0;
    if (a->copy_fits) {
        kbv_tensor copy = a->in[0];
        copy.ndim = ref->ndim;
        memcpy(copy.shape, ref->shape, sizeof copy.shape);
        memcpy(copy.stride, ref->stride, sizeof copy.stride);
        KBV_TRY(a->svc->compare(a->svc, &copy, ref, NULL, NULL, tol, tol, &cs));
        out->copy_pass &= cs.allclose_fail == 0;
    }
    return KBV_OK;
}

/* Draw d (planned as pd) of seed `seed_index`: the degenerate checks, then
 * the tf32 baseline against both gates, then (base draws) the trivial
 * outputs. */
static kbv_status audit_draw(audit_state *a, const kbv_planned_draw *pd, const kbv_draw *d,
                             int seed_index, kbv_audit_result *out)
{
    kbv_status st = KBV_OK;
    mode_outputs o;
    char label[28];
    snprintf(label, sizeof label, "%.7s seed %d", pd->standard ? "base" : pd->label,
             seed_index + 1);

    KBV_TRY_GOTO(mode_outputs_init(&o, a->g), st, done);
    KBV_TRY_GOTO(fill_inputs(a, d), st, done);
    KBV_TRY_GOTO(run_mode(a, KBV_MODE_FP64, &o), st, done);
    KBV_TRY_GOTO(check_degenerate(a, d, &o.out[KBV_MODE_FP64][0]), st, done);
    bool redraw_params = d->dist == KBV_DIST_D5;
    if (redraw_params) {
        /* as correctness.c's D5: every parameter redrawn so that each matters;
         * the oracle reruns on them */
        kbv_draw pd = {KBV_DIST_D5, d->seed ^ D5_PARAM_SEED_MIX};
        release_mode(a, KBV_MODE_FP64, &o);
        KBV_TRY_GOTO(fill_params(a, &pd), st, done);
        KBV_TRY_GOTO(run_mode(a, KBV_MODE_FP64, &o), st, done);
    }
    KBV_TRY_GOTO(run_mode(a, KBV_MODE_FP32, &o), st, done);
    KBV_TRY_GOTO(run_mode(a, KBV_MODE_FP32_STRICT, &o), st, done);
    KBV_TRY_GOTO(run_mode(a, KBV_MODE_TF32, &o), st, done);
    kbv_draw_verdict v;
    KBV_TRY_GOTO(judge_tf32(a, &o, &v), st, done);
    if (pd->verified) {
        gate_add(&out->tf32_standard, label, v.std_skipped, v.std_pass, v.std_reason);
        if (!v.std_skipped && v.max_abs_diff > out->tf32_max_diff)
            out->tf32_max_diff = v.max_abs_diff;
    }
    gate_add(&out->tf32_strict, label, false, v.strict_pass, v.strict_reason);
    if (pd->standard && a->float_out)
        KBV_TRY_GOTO(check_trivial(a, &o.out[KBV_MODE_FP32][0], out), st, done);
    /* the next draws' degenerate checks see the base params again */
    if (redraw_params)
        KBV_TRY_GOTO(fill_params(a, &base_params), st, done);
done:
    for (int m = 0; m < KBV_MODE_COUNT; m++) {
        release_mode(a, (kbv_mode)m, &o);
        free(o.out[m]);
    }
    return st;
}

/* ---- the audit ---------------------------------------------------------- */

bool kbv_audit_degenerate(const kbv_audit_result *r) { return r->constant || r->n_ignored > 0; }

kbv_status kbv_audit_problem(kbv_backend *const be[KBV_MODE_COUNT], const kbv_graph *g,
                             int seeds, kbv_audit_result *out)
{
    kbv_status st = KBV_OK;
    kbv_draw_plan plan;
    kbv_config_check check;
    memset(out, 0, sizeof *out);
    out->zeros_pass = out->copy_pass = true;
    audit_state *a = calloc(1, sizeof *a);
    if (!a)
        return kbv_fail(KBV_ERR_NOMEM, "audit state");
    if (g->n_outputs < 1)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "audit: the graph has no outputs");
    /* the draws the protocols make: one base draw, the hidden configs as
     * checked at this size, D5-D8 */
    kbv_draw_plan_make(0, g->def, &plan);
    KBV_TRY_GOTO(kbv_configs_check(be[KBV_MODE_FP32], g, &check), st, done);
    kbv_draw_plan_check(&plan, &check);
    out->n_dropped = plan.n_dropped;
    memcpy(out->dropped, plan.dropped, sizeof plan.dropped);
    for (int c = 0; c < check.n; c++)
        if (check.c[c].omitted && check.c[c].nonfinite == 0)
            snprintf(out->omit_finite[out->n_omit_finite++], sizeof out->omit_finite[0], "%s",
                     check.c[c].label);
    KBV_TRY_GOTO(state_init(a, be, g), st, done);
    for (int s = 0; s < seeds; s++) {
        for (int i = 0; i < plan.n; i++) {
            const kbv_planned_draw *pd = &plan.d[i];
            if (pd->standard && i > 0)
                continue;
            /* seeds of their own, public: base and Dk by distribution, extras after */
            uint64_t slot = pd->draw.extra
                                ? KBV_DIST_COUNT + (uint64_t)(pd->draw.extra - g->def->hidden.extra)
                                : (uint64_t)pd->draw.dist;
            kbv_draw d = pd->draw;
            d.seed = 1000003ULL * (uint64_t)(s + 1) + slot;
            KBV_TRY_GOTO(audit_draw(a, pd, &d, s, out), st, done);
            out->draws++;
        }
    }
    out->constant = !a->varies;
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_input_def *in = &g->def->inputs[g->values[i].def_index];
        if (a->depends[i] || in->gen == KBV_GEN_SCALAR)
            continue;
        if (out->n_ignored < KBV_AUDIT_NAMED_IGNORED)
            snprintf(out->ignored[out->n_ignored], sizeof out->ignored[0], "%s", in->name);
        out->n_ignored++;
    }
    /* trivial outputs pass only where they were judged at all */
    if (!a->float_out || a->trivial_judged == 0)
        out->zeros_pass = out->copy_pass = false;
    if (!a->copy_fits)
        out->copy_pass = false;
done:
    state_free(a);
    return st;
}
