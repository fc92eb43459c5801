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
    for (int j = 0; j < KBV_DEF_MAX_PARAMS; j++)
        if (s->par64_owned[j])
            s->ev->be[KBV_MODE_FP64]->release(s->ev->be[KBV_MODE_FP64], s->par64[j].data);
    if (s->have_arena)
        s->svc->arena_destroy(s->svc, &s->arena);
    free(s);
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
