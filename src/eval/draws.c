#include "eval/draws.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void kbv_draw_plan_make(uint64_t run_seed, const char *problem_key, kbv_draw_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    for (int i = 0; i < KBV_PLAN_DRAWS; i++) {
        kbv_planned_draw *d = &plan->d[i];
        bool base = i < KBV_BASE_DRAWS;
        d->draw.dist = base ? KBV_DIST_BASE : (kbv_dist)(KBV_DIST_D1 + (i - KBV_BASE_DRAWS));
        d->draw.seed = kbv_seed_derive(run_seed, problem_key, KBV_SEED_DRAW, (uint32_t)i);
        if (base)
            snprintf(d->label, sizeof d->label, "base#%d", i);
        else
            snprintf(d->label, sizeof d->label, "D%d", i - KBV_BASE_DRAWS + 1);
        d->standard = base;
        d->verified = d->draw.dist <= KBV_DIST_D4;
        d->redraw_params = d->draw.dist == KBV_DIST_D5;
    }
    plan->n = KBV_PLAN_DRAWS;
    plan->params.dist = KBV_DIST_BASE;
    plan->params.seed = kbv_seed_derive(run_seed, problem_key, KBV_SEED_PARAMS, 0);
    plan->params_d5.dist = KBV_DIST_D5;
    plan->params_d5.seed = kbv_seed_derive(run_seed, problem_key, KBV_SEED_PARAMS, 1);
}
