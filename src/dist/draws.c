#include "dist/draws.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

kbv_status kbv_run_seed_new(uint64_t *seed)
{
    uint64_t v = 0;
    ssize_t got;
    do {
        got = getrandom(&v, sizeof v, 0);
    } while (got < 0 && errno == EINTR);
    if (got != (ssize_t)sizeof v)
        return kbv_fail(KBV_ERR_IO, "getrandom: %s", got < 0 ? strerror(errno) : "short read");
    *seed = v & KBV_SEED_MAX;
    return KBV_OK;
}

kbv_status kbv_seed_parse(const char *s, uint64_t *seed)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return kbv_fail(KBV_ERR_PARSE, "seed '%s': expected a non-negative integer", s ? s : "");
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return kbv_fail(KBV_ERR_PARSE, "seed '%s': expected a non-negative integer", s);
    if (v > KBV_SEED_MAX)
        return kbv_fail(KBV_ERR_PARSE, "seed '%s' exceeds 2^53 - 1", s);
    *seed = (uint64_t)v;
    return KBV_OK;
}

/* SplitMix64's finaliser: a bijective mix with full avalanche. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t kbv_seed_derive(uint64_t run_seed, const char *problem_key, kbv_seed_purpose purpose,
                         uint32_t index)
{
    uint64_t h = mix64(run_seed + UINT64_C(0x9E3779B97F4A7C15));
    for (const unsigned char *p = (const unsigned char *)problem_key; p && *p; p++)
        h = mix64(h ^ *p);
    h = mix64(h ^ ((uint64_t)purpose << 32 | index));
    return h;
}

/* Seed indices: base#i is i, Dk is 4 + k, a problem's extra e is 13 + e, so
 * a label keeps its seed whatever configs the problem has. */
#define SEED_INDEX_D(k) (KBV_BASE_DRAWS - 1 + (k))
#define SEED_INDEX_EXTRA(e) (KBV_BASE_DRAWS + 8 + (e))

static const char *const omit_label[4] = {"D1", "D2", "D3", "D4"};

int kbv_hidden_configs(const kbv_problem *def, kbv_planned_draw *out)
{
    int n = 0;
    for (int k = 1; k <= 4; k++) {
        kbv_planned_draw *d = &out[n++];
        memset(d, 0, sizeof *d);
        d->draw.dist = (kbv_dist)(KBV_DIST_D1 + (k - 1));
        snprintf(d->label, sizeof d->label, "D%d", k);
        d->verified = true;
    }
    for (int e = 0; e < KBV_HIDDEN_MAX_EXTRA && def->hidden.extra[e].label; e++) {
        kbv_planned_draw *d = &out[n++];
        memset(d, 0, sizeof *d);
        d->draw.dist = KBV_DIST_BASE;
        d->draw.extra = &def->hidden.extra[e];
        snprintf(d->label, sizeof d->label, "%s", def->hidden.extra[e].label);
        d->verified = true;
    }
    return n;
}

bool kbv_config_omitted(const kbv_problem *def, const char *label)
{
    for (int k = 0; k < 4; k++)
        if ((def->hidden.omit >> k & 1u) && !strcmp(label, omit_label[k]))
            return true;
    return false;   /* extras are never omitted */
}

static uint32_t seed_index(const kbv_problem *def, const kbv_planned_draw *d)
{
    if (d->draw.extra)
        return SEED_INDEX_EXTRA((uint32_t)(d->draw.extra - def->hidden.extra));
    return SEED_INDEX_D((uint32_t)d->draw.dist);
}

static void count(kbv_draw_plan *plan)
{
    plan->n_standard = plan->n_verified = plan->verified_end = 0;
    for (int i = 0; i < plan->n; i++) {
        plan->n_standard += plan->d[i].standard;
        plan->n_verified += plan->d[i].verified;
        if (plan->d[i].verified)
            plan->verified_end = i + 1;
    }
}

void kbv_draw_plan_make(uint64_t run_seed, const kbv_problem *def, kbv_draw_plan *plan)
{
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    memset(plan, 0, sizeof *plan);
    for (int i = 0; i < KBV_BASE_DRAWS; i++) {
        kbv_planned_draw *d = &plan->d[plan->n++];
        d->draw.dist = KBV_DIST_BASE;
        d->draw.seed = kbv_seed_derive(run_seed, key, KBV_SEED_DRAW, (uint32_t)i);
        snprintf(d->label, sizeof d->label, "base#%d", i);
        d->standard = d->verified = true;
    }
    kbv_planned_draw configs[KBV_MAX_CONFIGS];
    int n_configs = kbv_hidden_configs(def, configs);
    for (int c = 0; c < n_configs; c++) {
        if (kbv_config_omitted(def, configs[c].label)) {
            kbv_config_drop *x = &plan->dropped[plan->n_dropped++];
            snprintf(x->label, sizeof x->label, "%s", configs[c].label);
            snprintf(x->reason, sizeof x->reason, "omitted as in the paper's hidden tests: %s",
                     def->hidden.omit_why);
            continue;
        }
        kbv_planned_draw *d = &plan->d[plan->n++];
        *d = configs[c];
        d->draw.seed = kbv_seed_derive(run_seed, key, KBV_SEED_DRAW, seed_index(def, d));
    }
    for (int k = 5; k <= 8; k++) {
        kbv_planned_draw *d = &plan->d[plan->n++];
        d->draw.dist = (kbv_dist)(KBV_DIST_D1 + (k - 1));
        d->draw.seed = kbv_seed_derive(run_seed, key, KBV_SEED_DRAW, SEED_INDEX_D((uint32_t)k));
        snprintf(d->label, sizeof d->label, "D%d", k);
        d->redraw_params = k == 5;
    }
    count(plan);
    plan->params.dist = KBV_DIST_BASE;
    plan->params.seed = kbv_seed_derive(run_seed, key, KBV_SEED_PARAMS, 0);
    plan->params_d5.dist = KBV_DIST_D5;
    plan->params_d5.seed = kbv_seed_derive(run_seed, key, KBV_SEED_PARAMS, 1);
}

bool kbv_draw_plan_drop(kbv_draw_plan *plan, const char *label, const char *reason)
{
    for (int i = 0; i < plan->n; i++) {
        kbv_planned_draw *d = &plan->d[i];
        if (!d->verified || d->standard || strcmp(d->label, label))
            continue;
        if (plan->n_dropped < KBV_MAX_CONFIGS) {
            kbv_config_drop *x = &plan->dropped[plan->n_dropped++];
            snprintf(x->label, sizeof x->label, "%s", label);
            snprintf(x->reason, sizeof x->reason, "%s", reason);
        }
        memmove(d, d + 1, (size_t)(plan->n - i - 1) * sizeof *d);
        plan->n--;
        count(plan);
        return true;
    }
    return false;
}

bool kbv_draw_from_label(const kbv_problem *def, const char *label, kbv_draw *out)
{
    memset(out, 0, sizeof *out);
    if (!strcasecmp(label, "base"))
        return true;
    if ((label[0] == 'D' || label[0] == 'd') && label[1] >= '1' && label[1] <= '8' && !label[2]) {
        out->dist = (kbv_dist)(KBV_DIST_D1 + (label[1] - '1'));
        return true;
    }
    for (int e = 0; e < KBV_HIDDEN_MAX_EXTRA && def->hidden.extra[e].label; e++)
        if (!strcasecmp(label, def->hidden.extra[e].label)) {
            out->extra = &def->hidden.extra[e];
            return true;
        }
    return false;
}
