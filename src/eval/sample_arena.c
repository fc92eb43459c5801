/* A sample's buffers in one arena: the layout with a guard band after every
 * buffer, the fills from the draws and their hashes, the in-place change of
 * strict's timing, and the check that the candidate left the inputs, the
 * params and the guard bands as they were. */
#include "eval/sample.h"

#include <stdio.h>
#include <string.h>

#include "core/bf16.h"

#define ARENA_ALIGN 256
#define PERTURB_ELEMENTS 8

static size_t align_up(size_t n) { return (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN; }

/* Places t after the guard that ends at *cursor, then a guard after it. */
static void place(sample *s, kbv_tensor *t, size_t *cursor, const char *what, const char *name,
                  int set)
{
    size_t off = align_up(*cursor);
    t->data = (void *)(uintptr_t)off;
    size_t end = off + kbv_tensor_bytes(t);
    if (s->n_guards >= s->n_guards_max)
        return; /* sized in sample_new: one per buffer; cannot happen */
    s->guard_off[s->n_guards] = end;
    if (set >= 0)
        snprintf(s->guard_where[s->n_guards], sizeof s->guard_where[0], "after %s '%s' (set %d)",
                 what, name ? name : "?", set);
    else
        snprintf(s->guard_where[s->n_guards], sizeof s->guard_where[0], "after %s '%s'", what,
                 name ? name : "?");
    s->n_guards++;
    *cursor = end + GUARD_BYTES;
}

/* Layout: guard, then each buffer followed by a guard: input sets, params, outputs. */
kbv_status sample_make_layout(sample *s)
{
    const kbv_graph *g = s->g;
    kbv_child_layout *L = &s->layout;
    KBV_TRY(sample_allocate(s));
    L->n_inputs = g->n_inputs;
    L->n_params = g->n_params;
    L->n_outputs = g->n_outputs;
    L->n_sets = N_SETS;
    s->n_guards = 1;
    s->guard_off[0] = 0;
    snprintf(s->guard_where[0], sizeof s->guard_where[0], "before the first buffer");
    size_t cursor = GUARD_BYTES;
    for (int set = 0; set < N_SETS; set++)
        for (int i = 0; i < g->n_inputs; i++) {
            kbv_tensor *t = &L->inputs[set * g->n_inputs + i];
            kbv_value_tensor(&g->values[i], t);
            t->dtype = sample_dtype(s, input_def(s, i)->dtype,
                                    input_def(s, i)->gen == KBV_GEN_SCALAR);
            t->name = input_def(s, i)->name;
            place(s, t, &cursor, "input", t->name, set);
        }
    for (int j = 0; j < g->n_params; j++) {
        kbv_tensor *t = &L->params[j];
        kbv_value_tensor(&g->values[g->n_inputs + j], t);
        t->dtype = sample_dtype(s, param_def(s, j)->dtype, false);
        t->name = param_def(s, j)->name;
        place(s, t, &cursor, "parameter", t->name, -1);
    }
    for (int k = 0; k < g->n_outputs; k++) {
        kbv_tensor *t = &L->outputs[k];
        kbv_value_tensor(&g->values[g->outputs[k]], t);
        t->dtype = sample_dtype(s, t->dtype, false);
        place(s, t, &cursor, "output", t->name, -1);
    }
    kbv_status st = s->svc->arena_create(s->svc, cursor, &s->arena);
    if (st == KBV_ERR_NOMEM) {
        /* the backends' caches may hold what the arena needs: give it back, once */
        kbv_clear_error();
        for (int m = 0; m < KBV_MODE_COUNT; m++)
            if (s->ev->be[m])
                s->ev->be[m]->trim(s->ev->be[m]);
        st = s->svc->arena_create(s->svc, cursor, &s->arena);
    }
    KBV_TRY(st);
    s->have_arena = true;
    unsigned char *base = s->arena.base;
    for (int set = 0; set < N_SETS; set++)
        for (int i = 0; i < g->n_inputs; i++) {
            s->in[set][i] = L->inputs[set * g->n_inputs + i];
            s->in[set][i].data = base + (uintptr_t)L->inputs[set * g->n_inputs + i].data;
        }
    for (int j = 0; j < g->n_params; j++) {
        s->par[j] = L->params[j];
        s->par[j].data = base + (uintptr_t)L->params[j].data;
    }
    for (int k = 0; k < g->n_outputs; k++) {
        s->out[k] = L->outputs[k];
        s->out[k].data = base + (uintptr_t)L->outputs[k].data;
    }
    /* guard bands: a pattern from the run seed, checked after every call */
    unsigned char pattern[GUARD_BYTES];
    for (size_t b = 0; b < GUARD_BYTES; b += 4) {
        kbv_philox_out r = kbv_rng(s->ev->opts.run_seed, 0xFFFFu, 7, b / 4);
        memcpy(pattern + b, &r.v[0], 4);
    }
    for (int q = 0; q < s->n_guards; q++)
        KBV_TRY(s->svc->from_host(s->svc, base + s->guard_off[q], pattern, GUARD_BYTES));
    KBV_TRY(s->svc->hash(s->svc, base + s->guard_off[0], GUARD_BYTES, &s->guard_hash));
    /* the input changed in place during strict timing: plain float draws only */
    s->perturbable = -1;
    for (int i = 0; i < g->n_inputs && s->perturbable < 0; i++) {
        const kbv_input_def *d = input_def(s, i);
        if (d->dtype == KBV_F32 && d->structure == KBV_STRUCT_NONE &&
            (d->gen == KBV_GEN_RAND || d->gen == KBV_GEN_RANDN) && kbv_tensor_numel(&s->in[0][i]) > 0)
            s->perturbable = i;
    }
    return KBV_OK;
}

kbv_status sample_hash_tensor(sample *s, const kbv_tensor *t, uint64_t *h)
{
    sample_busy_enter(s, KBV_CHECK_HASHES);
    kbv_status st = s->svc->hash(s->svc, t->data, kbv_tensor_bytes(t), h);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Each fill waits for its own work, so that the hash after it is charged
 * for hashing alone (eval/busy.h). */
static kbv_status fill_set(sample *s, int set, const kbv_draw *d)
{
    for (int i = 0; i < s->g->n_inputs; i++) {
        KBV_TRY(s->svc->fill(s->svc, input_def(s, i), s->g->values[i].def_index, d,
                             &s->in[set][i]));
        KBV_TRY(s->svc->sync(s->svc));
        KBV_TRY(sample_hash_tensor(s, &s->in[set][i], &s->in_hash[set][i]));
    }
    return KBV_OK;
}

kbv_status sample_fill_set(sample *s, int set, const kbv_draw *d)
{
    sample_busy_enter(s, KBV_CHECK_FILLS);
    kbv_status st = fill_set(s, set, d);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

/* Params from draw d and their hashes, then the oracle's float64 copies (their
 * conversion charged to the oracle). */
static kbv_status fill_params(sample *s, const kbv_draw *d)
{
    kbv_backend *be64 = s->ev->be[KBV_MODE_FP64];
    for (int j = 0; j < s->g->n_params; j++) {
        KBV_TRY(s->svc->fill_param(s->svc, s->g, j, d, &s->par[j]));
        KBV_TRY(s->svc->sync(s->svc));
        KBV_TRY(sample_hash_tensor(s, &s->par[j], &s->par_hash[j]));
    }
    kbv_status st = KBV_OK;
    sample_busy_enter(s, KBV_CHECK_ORACLE);
    for (int j = 0; j < s->g->n_params && st == KBV_OK; j++) {
        if (!kbv_dtype_is_float(s->par[j].dtype)) {
            s->par64[j] = s->par[j];
            continue;
        }
        if (!s->par64_owned[j]) {
            s->par64[j] = s->par[j];
            s->par64[j].dtype = KBV_F64;
            void *p = NULL;
            st = be64->alloc(be64, kbv_tensor_bytes(&s->par64[j]), &p);
            if (st != KBV_OK)
                break;
            s->par64[j].data = p;
            s->par64_owned[j] = true;
        }
        st = be64->convert(be64, &s->par[j], &s->par64[j]);
    }
    if (st == KBV_OK)
        st = be64->sync(be64);
    sample_busy_leave(s);
    KBV_TRY(st);
    s->cur_params = *d;
    return KBV_OK;
}

/* Params from draw d, their hashes and the oracle's float64 copies. */
kbv_status sample_fill_params(sample *s, const kbv_draw *d)
{
    sample_busy_enter(s, KBV_CHECK_FILLS);
    kbv_status st = fill_params(s, d);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

static kbv_status perturb(sample *s, int set, uint64_t seed)
{
    int i = s->perturbable;
    kbv_tensor *t = &s->in[set][i];
    const kbv_input_def *d = input_def(s, i);
    int64_t n = kbv_tensor_numel(t);
    uint32_t key = kbv_input_key(s->g->values[i].def_index);
    for (int e = 0; e < PERTURB_ELEMENTS; e++) {
        kbv_philox_out r = kbv_rng(seed, key, 9, (uint64_t)e);
        int64_t idx = (int64_t)((((uint64_t)r.v[1] << 32) | r.v[0]) % (uint64_t)n);
        float v = (float)kbv_dist_value(KBV_DIST_BASE, d->gen == KBV_GEN_RANDN, seed ^ r.v[2],
                                        key, (uint64_t)idx, 0);
        if (t->dtype == KBV_BF16) {   /* the float32 value cast, as every bf16 draw */
            uint16_t h = kbv_bf16_from_float(v);
            KBV_TRY(s->svc->from_host(s->svc, (uint16_t *)t->data + idx, &h, sizeof h));
        } else {
            KBV_TRY(s->svc->from_host(s->svc, (float *)t->data + idx, &v, sizeof v));
        }
    }
    KBV_TRY(sample_hash_tensor(s, t, &s->in_hash[set][i]));
    return KBV_OK;
}

/* A few elements of the perturbable input of `set` changed at the same address. */
kbv_status sample_perturb(sample *s, int set, uint64_t seed)
{
    sample_busy_enter(s, KBV_CHECK_FILLS);
    kbv_status st = perturb(s, set, seed);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

static kbv_status integrity(sample *s, int set, char *why, size_t cap, bool *params_touched)
{
    uint64_t h;
    why[0] = '\0';
    *params_touched = false;
    for (int i = 0; i < s->g->n_inputs; i++) {
        KBV_TRY(sample_hash_tensor(s, &s->in[set][i], &h));
        if (h != s->in_hash[set][i] && !why[0])
            snprintf(why, cap, "input '%s' modified", s->in[set][i].name);
    }
    for (int j = 0; j < s->g->n_params; j++) {
        KBV_TRY(sample_hash_tensor(s, &s->par[j], &h));
        if (h != s->par_hash[j]) {
            *params_touched = true;
            if (!why[0])
                snprintf(why, cap, "parameter '%s' modified", s->par[j].name);
        }
    }
    unsigned char *base = s->arena.base;
    for (int q = 0; q < s->n_guards; q++) {
        KBV_TRY(s->svc->hash(s->svc, base + s->guard_off[q], GUARD_BYTES, &h));
        if (h != s->guard_hash && !why[0])
            snprintf(why, cap, "guard band %s overwritten", s->guard_where[q]);
    }
    return KBV_OK;
}

/* What the candidate broke, "" when nothing: inputs of `set`, params, guards. */
kbv_status sample_integrity(sample *s, int set, char *why, size_t cap, bool *params_touched)
{
    sample_busy_enter(s, KBV_CHECK_HASHES);
    kbv_status st = integrity(s, set, why, cap, params_touched);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}
