#include "eval/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tensors for one backend: inputs, params, and the output of one run. */
typedef struct run_set {
    kbv_backend *be;
    kbv_tensor in[KBV_DEF_MAX_INPUTS], par[KBV_DEF_MAX_PARAMS];
} run_set;

static bool is_float(kbv_dtype dt) { return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16 || dt == KBV_BF16; }

static void run_set_free(const kbv_graph *g, run_set *rs)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (rs->in[i].data)
            rs->be->release(rs->be, rs->in[i].data);
    for (int j = 0; j < g->n_params; j++)
        if (rs->par[j].data)
            rs->be->release(rs->be, rs->par[j].data);
}

static kbv_status tensor_alloc(kbv_backend *be, const kbv_value *v, kbv_dtype def_dtype,
                               kbv_tensor *t)
{
    kbv_value_tensor(v, t);
    t->dtype = is_float(def_dtype) ? be->float_dtype : def_dtype;
    size_t bytes = (size_t)kbv_value_numel(v) * kbv_dtype_size(t->dtype);
    return be->alloc(be, bytes ? bytes : 1, &t->data);
}

static kbv_status run_set_make(kbv_backend *be, const kbv_graph *g, run_set *rs)
{
    kbv_status st = KBV_OK;
    memset(rs, 0, sizeof *rs);
    rs->be = be;
    for (int i = 0; i < g->n_inputs; i++)
        KBV_TRY_GOTO(tensor_alloc(be, &g->values[i], g->def->inputs[g->values[i].def_index].dtype,
                                  &rs->in[i]),
                     st, fail);
    for (int j = 0; j < g->n_params; j++) {
        const kbv_value *v = &g->values[g->n_inputs + j];
        KBV_TRY_GOTO(tensor_alloc(be, v, g->def->params[v->def_index].dtype, &rs->par[j]), st,
                     fail);
        kbv_draw pd = {KBV_DIST_BASE, 0x5eedULL};
        KBV_TRY_GOTO(be->fill_param(be, &g->def->params[v->def_index], v->def_index, &pd,
                                    &rs->par[j]),
                     st, fail);
    }
    return KBV_OK;
fail:
    run_set_free(g, rs);
    return st;
}

static kbv_status fill_input(run_set *rs, const kbv_graph *g, int i, const kbv_draw *d)
{
    return rs->be->fill(rs->be, &g->def->inputs[g->values[i].def_index], g->values[i].def_index,
                        d, &rs->in[i]);
}

/* Runs g and copies its first output to host memory (malloc'd into *host). */
static kbv_status run_to_host(const kbv_graph *g, run_set *rs, kbv_tensor *out, void **host,
                              size_t *bytes)
{
    kbv_tensor outs[KBV_DEF_MAX_OUTPUTS];
    memset(outs, 0, sizeof outs);
    KBV_TRY(kbv_graph_run(g, rs->be, rs->in, rs->par, outs));
    kbv_status st = KBV_OK;
    *out = outs[0];
    *bytes = (size_t)kbv_value_numel(&g->values[g->outputs[0]]) * kbv_dtype_size(outs[0].dtype);
    *host = malloc(*bytes ? *bytes : 1);
    if (!*host)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "audit: %zu bytes", *bytes);
    KBV_TRY_GOTO(rs->be->to_host(rs->be, *host, outs[0].data, *bytes), st, done);
done:
    for (int k = 1; k < g->n_outputs; k++)
        if (outs[k].data)
            rs->be->release(rs->be, outs[k].data);
    if (st != KBV_OK) {
        rs->be->release(rs->be, outs[0].data);
        free(*host);
        *host = NULL;
    }
    return st;
}

/* allclose(cand, ref) on every element (the paper's gate). A draw whose
 * reference is not finite is not judged, as the protocols skip it. */
static kbv_status passes_allclose(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *ref,
                                  bool *judged, bool *pass, double *max_diff)
{
    kbv_compare_stats cs;
    KBV_TRY(be->compare(be, cand, ref, NULL, NULL, 1e-3, 1e-3, &cs));
    *judged = cs.ref_nonfinite == 0;
    *pass = cs.allclose_fail == 0;
    if (max_diff)
        *max_diff = cs.max_abs_diff;
    return KBV_OK;
}

bool kbv_audit_degenerate(const kbv_audit_result *r) { return r->constant || r->n_ignored > 0; }

kbv_status kbv_audit_problem(kbv_backend *const be[KBV_MODE_COUNT], const kbv_graph *g,
                             int seeds, kbv_audit_result *out)
{
    kbv_status st = KBV_OK;
    run_set r64, r32, rtf;
    bool have64 = false, have32 = false, havetf = false;
    void *first = NULL, *cur = NULL, *alt = NULL;
    size_t bytes = 0;
    bool varies = false, depends[KBV_DEF_MAX_INPUTS] = {false};
    kbv_tensor zeros = {0};
    memset(out, 0, sizeof *out);
    out->zeros_pass = out->copy_pass = true;

    KBV_TRY_GOTO(run_set_make(be[KBV_MODE_FP64], g, &r64), st, done);
    have64 = true;
    KBV_TRY_GOTO(run_set_make(be[KBV_MODE_FP32], g, &r32), st, done);
    have32 = true;
    KBV_TRY_GOTO(run_set_make(be[KBV_MODE_TF32], g, &rtf), st, done);
    havetf = true;
    const kbv_value *ov = &g->values[g->outputs[0]];
    bool float_out = is_float(ov->dtype);
    const kbv_value *iv = &g->values[0];
    bool copy_fits = g->n_inputs > 0 && float_out && is_float(iv->dtype) &&
                     kbv_value_numel(iv) == kbv_value_numel(ov);
    if (float_out) {
        KBV_TRY_GOTO(tensor_alloc(be[KBV_MODE_FP32], ov, ov->dtype, &zeros), st, done);
        size_t zbytes = (size_t)kbv_value_numel(ov) * kbv_dtype_size(zeros.dtype);
        void *z = calloc(1, zbytes ? zbytes : 1);
        if (!z)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "audit: zeros");
        st = be[KBV_MODE_FP32]->from_host(be[KBV_MODE_FP32], zeros.data, z, zbytes);
        free(z);
        if (st != KBV_OK)
            goto done;
    }

    for (int s = 0; s < seeds; s++) {
        for (int dist = KBV_DIST_BASE; dist < KBV_DIST_COUNT; dist++) {
            kbv_draw d = {(kbv_dist)dist, 1000003ULL * (uint64_t)(s + 1) + (uint64_t)dist};
            for (int i = 0; i < g->n_inputs; i++) {
                KBV_TRY_GOTO(fill_input(&r64, g, i, &d), st, done);
                KBV_TRY_GOTO(fill_input(&r32, g, i, &d), st, done);
                KBV_TRY_GOTO(fill_input(&rtf, g, i, &d), st, done);
            }
            kbv_tensor o64;
            KBV_TRY_GOTO(run_to_host(g, &r64, &o64, &cur, &bytes), st, done);
            r64.be->release(r64.be, o64.data);
            if (!first) {
                first = cur;
                cur = NULL;
                /* constant within one output counts too: compare elements to the first */
                size_t es = kbv_dtype_size(o64.dtype);
                for (size_t k = es; k < bytes && !varies; k += es)
                    varies = memcmp((char *)first + k, first, es) != 0;
            } else {
                varies |= memcmp(cur, first, bytes) != 0;
            }
            const void *base_out = cur ? cur : first;

            /* does the output move when one input alone is redrawn? */
            for (int i = 0; i < g->n_inputs; i++) {
                const kbv_input_def *in = &g->def->inputs[g->values[i].def_index];
                if (depends[i] || in->gen == KBV_GEN_SCALAR)
                    continue;
                kbv_draw other = {d.dist, d.seed ^ 0x9E3779B97F4A7C15ULL};
                KBV_TRY_GOTO(fill_input(&r64, g, i, &other), st, done);
                KBV_TRY_GOTO(run_to_host(g, &r64, &o64, &alt, &bytes), st, done);
                r64.be->release(r64.be, o64.data);
                depends[i] = memcmp(alt, base_out, bytes) != 0;
                free(alt);
                alt = NULL;
                KBV_TRY_GOTO(fill_input(&r64, g, i, &d), st, done);
            }
            free(cur);
            cur = NULL;

            /* the paper's gate against the fp32 baseline: trivial outputs, and TF32 */
            bool gated = dist == KBV_DIST_BASE || dist <= KBV_DIST_D4;
            if (float_out && gated) {
                kbv_tensor o32, otf;
                void *h32 = NULL, *htf = NULL;
                size_t b32;
                KBV_TRY_GOTO(run_to_host(g, &r32, &o32, &h32, &b32), st, done);
                free(h32);
                st = run_to_host(g, &rtf, &otf, &htf, &b32);
                free(htf);
                if (st != KBV_OK) {
                    r32.be->release(r32.be, o32.data);
                    goto done;
                }
                bool judged = false, pass = false;
                double diff = 0;
                st = passes_allclose(be[KBV_MODE_FP32], &otf, &o32, &judged, &pass, &diff);
                if (st == KBV_OK && judged) {
                    out->tf32_judged++;
                    if (!pass)
                        out->tf32_fail++;
                    if (diff > out->tf32_max_diff)
                        out->tf32_max_diff = diff;
                }
                if (st == KBV_OK && judged && dist == KBV_DIST_BASE) {
                    st = passes_allclose(be[KBV_MODE_FP32], &zeros, &o32, &judged, &pass, NULL);
                    out->zeros_pass &= pass;
                    if (st == KBV_OK && copy_fits) {
                        kbv_tensor c = r32.in[0];
                        c.ndim = o32.ndim;
                        memcpy(c.shape, o32.shape, sizeof c.shape);
                        memcpy(c.stride, o32.stride, sizeof c.stride);
                        st = passes_allclose(be[KBV_MODE_FP32], &c, &o32, &judged, &pass, NULL);
                        out->copy_pass &= pass;
                    }
                }
                rtf.be->release(rtf.be, otf.data);
                r32.be->release(r32.be, o32.data);
                if (st != KBV_OK)
                    goto done;
            }
            out->draws++;
        }
    }
    out->constant = !varies;
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_input_def *in = &g->def->inputs[g->values[i].def_index];
        if (!depends[i] && in->gen != KBV_GEN_SCALAR)
            snprintf(out->ignored[out->n_ignored++], sizeof out->ignored[0], "%s", in->name);
    }
    if (!float_out)
        out->zeros_pass = out->copy_pass = false;
    if (!copy_fits)
        out->copy_pass = false;
done:
    free(first);
    free(cur);
    free(alt);
    if (zeros.data)
        be[KBV_MODE_FP32]->release(be[KBV_MODE_FP32], zeros.data);
    if (havetf)
        run_set_free(g, &rtf);
    if (have32)
        run_set_free(g, &r32);
    if (have64)
        run_set_free(g, &r64);
    return st;
}
