/* A sample's state: made for a graph, freed with its runner, and the
 * built candidate's symbols read once. */
#include "eval/sample.h"

#include <stdlib.h>

/* The built candidate's symbols, read on first use: the allowlist and the
 * traced pass both judge them. */
kbv_status sample_symbols(sample *s, const char *so_path, const kbv_symbols **out)
{
    if (!s->have_syms) {
        KBV_TRY(kbv_symbols_read(so_path, &s->syms));
        s->have_syms = true;
    }
    *out = &s->syms;
    return KBV_OK;
}

/* Stops the runner and releases what a sample holds. */
void sample_free(sample *s)
{
    if (s->have_syms)
        kbv_symbols_free(&s->syms);
    sample_child_stop(s);
    for (int j = 0; s->par64_owned && j < s->g->n_params; j++)
        if (s->par64_owned[j])
            s->ev->be[KBV_MODE_FP64]->release(s->ev->be[KBV_MODE_FP64], s->par64[j].data);
    if (s->have_arena)
        s->svc->arena_destroy(s->svc, &s->arena);
    free(s->layout.inputs);
    free(s->layout.params);
    free(s->layout.outputs);
    for (int set = 0; set < N_SETS; set++) {
        free(s->in[set]);
        free(s->in_hash[set]);
    }
    free(s->par);
    free(s->out);
    free(s->par64);
    free(s->par64_owned);
    free(s->par_hash);
    free(s->guard_off);
    free(s->guard_where);
    free(s);
}

/* The per-tensor arrays, sized by s->g. */
kbv_status sample_allocate(sample *s)
{
    const kbv_graph *g = s->g;
    if (s->layout.inputs)
        return KBV_OK;   /* done already */
    size_t ni = (size_t)g->n_inputs + 1, np = (size_t)g->n_params + 1;
    size_t no = (size_t)g->n_outputs + 1;
    bool ok = true;
    s->layout.inputs = calloc(N_SETS * ni, sizeof *s->layout.inputs);
    s->layout.params = calloc(np, sizeof *s->layout.params);
    s->layout.outputs = calloc(no, sizeof *s->layout.outputs);
    for (int set = 0; set < N_SETS; set++) {
        s->in[set] = calloc(ni, sizeof *s->in[set]);
        s->in_hash[set] = calloc(ni, sizeof *s->in_hash[set]);
        ok = ok && s->in[set] && s->in_hash[set];
    }
    s->par = calloc(np, sizeof *s->par);
    s->out = calloc(no, sizeof *s->out);
    s->par64 = calloc(np, sizeof *s->par64);
    s->par64_owned = calloc(np, sizeof *s->par64_owned);
    s->par_hash = calloc(np, sizeof *s->par_hash);
    /* one before the first buffer and one after each */
    s->n_guards_max = 1 + N_SETS * g->n_inputs + g->n_params + g->n_outputs;
    s->guard_off = calloc((size_t)s->n_guards_max, sizeof *s->guard_off);
    s->guard_where = calloc((size_t)s->n_guards_max, sizeof *s->guard_where);
    ok = ok && s->layout.inputs && s->layout.params && s->layout.outputs && s->par && s->out &&
         s->par64 && s->par64_owned && s->par_hash && s->guard_off && s->guard_where;
    if (!ok)
        return kbv_fail(KBV_ERR_NOMEM, "sample of %d inputs, %d params", g->n_inputs,
                        g->n_params);
    return KBV_OK;
}

/* A sample of graph g (already built), ready for its runner. */
kbv_status sample_new(kbv_evaluator *ev, const kbv_graph *g, const char *key,
                             sample **out)
{
    kbv_status st = KBV_OK;
    sample *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return kbv_fail(KBV_ERR_NOMEM, "sample state");
    s->ev = ev;
    s->svc = ev->be[KBV_MODE_FP32];
    s->g = g;
    s->key = key;
    kbv_draw_plan_make(ev->opts.run_seed, g->def, &s->plan);
    KBV_TRY_GOTO(sample_make_layout(s), st, done);
    KBV_TRY_GOTO(sample_fill_params(s, &s->plan.params), st, done);
    KBV_TRY_GOTO(sample_fill_set(s, 1, &s->plan.d[0].draw), st, done);
    *out = s;
done:
    if (st != KBV_OK)
        sample_free(s);
    return st;
}
