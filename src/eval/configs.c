#include "eval/configs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tensor of value v in dtype on be, as sample_arena.c lays out a sample's. */
static kbv_status tensor_alloc(kbv_backend *be, const kbv_value *v, kbv_dtype dtype, kbv_tensor *t)
{
    kbv_value_tensor(v, t);
    t->dtype = dtype;
    size_t bytes = kbv_tensor_bytes(t);
    return be->alloc(be, bytes ? bytes : 1, &t->data);
}

/* One config's draw d through the reference: the outputs' elements that are
 * not finite, of all. */
static kbv_status run_config(kbv_backend *be, const kbv_graph *g, kbv_tensor *in,
                             const kbv_tensor *par, const kbv_draw *d, kbv_config_verdict *v)
{
    kbv_status st = KBV_OK;
    bool ran = false;
    kbv_tensor *out = calloc((size_t)g->n_outputs + 1, sizeof *out);
    if (!out)
        return kbv_fail(KBV_ERR_NOMEM, "outputs of %d", g->n_outputs);
    for (int i = 0; i < g->n_inputs; i++) {
        int di = g->values[i].def_index;
        KBV_TRY_GOTO(be->fill(be, &g->def->inputs[di], di, d, &in[i]), st, done);
    }
    KBV_TRY_GOTO(kbv_graph_run(g, be, in, par, out), st, done);
    ran = true;
    KBV_TRY_GOTO(be->sync(be), st, done);
    for (int k = 0; k < g->n_outputs; k++) {
        if (!kbv_dtype_is_float(out[k].dtype)) {
            v->n += kbv_value_numel(&g->values[g->outputs[k]]);
            continue;
        }
        kbv_compare_stats cs;
        KBV_TRY_GOTO(be->compare(be, &out[k], &out[k], NULL, NULL, 0.0, 0.0, &cs), st, done);
        v->nonfinite += cs.ref_nonfinite;
        v->n += cs.n;
    }
done:
    for (int k = 0; ran && k < g->n_outputs; k++)
        be->release(be, out[k].data);
    free(out);
    return st;
}

kbv_status kbv_configs_check(kbv_backend *fp32, const kbv_graph *g, kbv_config_check *out)
{
    kbv_status st = KBV_OK;
    int n_in = 0, n_par = 0;
    char key[32];
    kbv_problem_key(g->def, key, sizeof key);
    memset(out, 0, sizeof *out);
    kbv_tensor *in = calloc((size_t)g->n_inputs + 1, sizeof *in);
    kbv_tensor *par = calloc((size_t)g->n_params + 1, sizeof *par);
    if (!in || !par)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "tensors of %s", key);
    for (; n_in < g->n_inputs; n_in++)
        KBV_TRY_GOTO(tensor_alloc(fp32, &g->values[n_in],
                                  g->def->inputs[g->values[n_in].def_index].dtype, &in[n_in]),
                     st, done);
    /* the base parameters, as the paper's module keeps its own */
    const kbv_draw params = {KBV_DIST_BASE, kbv_seed_derive(0, key, KBV_SEED_PARAMS, 0), NULL};
    for (; n_par < g->n_params; n_par++) {
        const kbv_value *v = &g->values[g->n_inputs + n_par];
        const kbv_param_def *pd = &g->def->params[v->def_index];
        KBV_TRY_GOTO(tensor_alloc(fp32, v, pd->dtype, &par[n_par]), st, done);
        KBV_TRY_GOTO(fp32->fill_param(fp32, g, n_par, &params, &par[n_par]), st, done);
    }
    kbv_planned_draw configs[KBV_MAX_CONFIGS];
    int n = kbv_hidden_configs(g->def, configs);
    for (int c = 0; c < n; c++) {
        kbv_config_verdict *v = &out->c[out->n++];
        snprintf(v->label, sizeof v->label, "%s", configs[c].label);
        v->omitted = kbv_config_omitted(g->def, v->label);
        kbv_draw d = configs[c].draw;
        d.seed = kbv_seed_derive(0, key, KBV_SEED_VALIDATE, (uint32_t)c);
        KBV_TRY_GOTO(run_config(fp32, g, in, par, &d, v), st, done);
    }
done:
    for (int i = 0; i < n_in; i++)
        fp32->release(fp32, in[i].data);
    for (int j = 0; j < n_par; j++)
        fp32->release(fp32, par[j].data);
    free(in);
    free(par);
    return st;
}

void kbv_draw_plan_check(kbv_draw_plan *plan, const kbv_config_check *check)
{
    for (int c = 0; c < check->n; c++) {
        const kbv_config_verdict *v = &check->c[c];
        if (v->omitted || v->nonfinite == 0)
            continue;
        char why[sizeof plan->dropped[0].reason];
        snprintf(why, sizeof why, "its fp32 reference is not finite on a check draw (%lld of "
                 "%lld elements): dropped, as the paper's generator drops such configs",
                 (long long)v->nonfinite, (long long)v->n);
        kbv_draw_plan_drop(plan, v->label, why);
    }
}

/* ---- the cache ---------------------------------------------------------- */

typedef struct cache_entry {
    const kbv_problem *def;
    int64_t *dims;                 /* def->n_dims */
    kbv_config_check check;
} cache_entry;

struct kbv_config_cache {
    int n, cap;
    cache_entry **e;
};

kbv_status kbv_config_cache_get(kbv_config_cache **cache, kbv_backend *fp32, const kbv_graph *g,
                                const kbv_config_check **out)
{
    if (!*cache && !(*cache = calloc(1, sizeof **cache)))
        return kbv_fail(KBV_ERR_NOMEM, "hidden config cache");
    kbv_config_cache *c = *cache;
    for (int i = 0; i < c->n; i++)
        if (c->e[i]->def == g->def &&
            !memcmp(c->e[i]->dims, g->dims, sizeof *g->dims * (size_t)g->n_dims)) {
            *out = &c->e[i]->check;
            return KBV_OK;
        }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        cache_entry **e = realloc(c->e, (size_t)cap * sizeof *e);
        if (!e)
            return kbv_fail(KBV_ERR_NOMEM, "hidden config cache");
        c->e = e;
        c->cap = cap;
    }
    cache_entry *e = calloc(1, sizeof *e);
    int64_t *dims = calloc((size_t)g->n_dims + 1, sizeof *dims);
    if (!e || !dims) {
        free(e);
        free(dims);
        return kbv_fail(KBV_ERR_NOMEM, "hidden config cache");
    }
    e->def = g->def;
    e->dims = dims;
    memcpy(e->dims, g->dims, sizeof *g->dims * (size_t)g->n_dims);
    kbv_status st = kbv_configs_check(fp32, g, &e->check);
    if (st != KBV_OK) {
        free(e->dims);
        free(e);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    c->e[c->n++] = e;
    *out = &e->check;
    return KBV_OK;
}

void kbv_config_cache_free(kbv_config_cache *cache)
{
    if (!cache)
        return;
    for (int i = 0; i < cache->n; i++) {
        free(cache->e[i]->dims);
        free(cache->e[i]);
    }
    free(cache->e);
    free(cache);
}
