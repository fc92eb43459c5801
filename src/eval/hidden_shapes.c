/* Strict's hidden shapes: the candidate at shapes it was not shown, an
 * advisory flag when it is wrong there. */
#include "eval/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hidden shape k of a problem: its CI size (small, odd where the ops allow)
 * and twice that plus one -- odd, off every power-of-two tile. */
static void hidden_dims(const kbv_problem *def, int k, int n_dims, int64_t *dims)
{
    for (int d = 0; d < n_dims; d++)
        dims[d] = k == 0 ? def->dims[d].small : 2 * def->dims[d].small + 1;
}

/* One hidden shape: a runner of its own, one fresh draw, the strict rule.
 * *ok stays true when the shape does not exist for the problem. */
static kbv_status hidden_shape(sample *outer, int k, const char *so_path, kbv_record *rec,
                               bool *ok, char *why, size_t cap)
{
    kbv_status st = KBV_OK;
    kbv_graph *g = calloc(1, sizeof *g);
    sample *s = NULL;
    refs r;
    memset(&r, 0, sizeof r);
    *ok = true;
    int64_t *dims = calloc((size_t)outer->g->n_dims + 1, sizeof *dims);
    if (!g || !dims) {
        free(g);
        free(dims);
        return kbv_fail(KBV_ERR_NOMEM, "hidden shape graph");
    }
    hidden_dims(outer->g->def, k, outer->g->n_dims, dims);
    if (kbv_graph_build_dims(outer->g->def, dims, g) != KBV_OK)
        goto done;   /* not a valid shape of this problem: nothing to check */
    KBV_TRY_GOTO(sample_new(outer->ev, g, outer->key, &s), st, done);
    s->rec = rec;
    kbv_phase_clock_start(&s->clock, rec, KBV_PHASE_AUDIT);
    kbv_child_result res;
    KBV_TRY_GOTO(sample_child_start(s, so_path, &res), st, done);
    if (res.fault == KBV_FAULT_NONE) {
        kbv_draw d = {KBV_DIST_D6, kbv_seed_derive(outer->ev->opts.run_seed, outer->key,
                                                   KBV_SEED_AUDIT, 2 + (uint32_t)k)};
        KBV_TRY_GOTO(sample_fill_set(s, 0, &d), st, done);
        KBV_TRY_GOTO(sample_refs_compute(s, 0, REFS_STRICT, &r), st, done);
        KBV_TRY_GOTO(sample_poison_outputs(s), st, done);
        KBV_TRY_GOTO(sample_child_call(s, 0, 1, false, &res), st, done);
    }
    char shape[96] = "";
    for (int d = 0, at = 0; d < g->n_dims && at < (int)sizeof shape; d++)
        at += snprintf(shape + at, sizeof shape - (size_t)at, "%s%s=%lld", d ? ", " : "",
                       g->def->dims[d].name, (long long)g->dims[d]);
    if (res.fault != KBV_FAULT_NONE) {
        *ok = false;
        snprintf(why, cap, "hidden shape (%s): %s: %.300s", shape,
                 kbv_child_fault_name(res.fault), res.reason);
        goto done;
    }
    kbv_draw_verdict v;
    KBV_TRY_GOTO(sample_judge_call(s, 0, &r, &v, NULL), st, done);
    if (!v.strict_pass) {
        *ok = false;
        snprintf(why, cap, "hidden shape (%s): %s", shape, v.strict_reason);
    }
done:
    if (s) {
        sample_refs_release(s, &r);
        kbv_phase_clock_stop(&s->clock);
        sample_free(s);
    }
    kbv_graph_free(g);
    free(g);
    free(dims);
    return st;
}

/* Strict's advisory flag `shape-specialised`: wrong at a hidden shape. The
 * paper counts tuning to the shape as legitimate, so this does not fail. */
kbv_status protocol_hidden_shapes(sample *s, const char *so_path, kbv_record *rec,
                                  kbv_proto_result *S)
{
    kbv_phase was = kbv_phase_enter(&s->clock, KBV_PHASE_NONE);  /* the shapes' own clocks count */
    for (int k = 0; k < KBV_HIDDEN_SHAPES; k++) {
        bool ok;
        char why[KBV_REASON_CAP + 128];
        KBV_TRY(hidden_shape(s, k, so_path, rec, &ok, why, sizeof why));
        if (!ok) {
            kbv_proto_add_flag(S, "shape-specialised");
            snprintf(S->advisory, sizeof S->advisory, "%.380s", why);
            break;
        }
    }
    kbv_phase_enter(&s->clock, was);
    return KBV_OK;
}
