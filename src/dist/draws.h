/* Seeds and the draw plan of one problem (DESIGN section 4).
 *
 * A run has one secret seed (from the kernel's entropy unless given). Every
 * random choice of the evaluation -- each draw's inputs, the parameters, the
 * timing trials' fresh inputs -- uses a seed derived from it by hashing
 * (run seed, problem key, purpose, index), so every sample of a problem sees
 * the same draws and any draw can be reproduced from the run seed. */
#ifndef KBV_DRAWS_H
#define KBV_DRAWS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "dist/dist.h"

/* Seeds fit in 53 bits so every JSON reader keeps them exact. */
#define KBV_SEED_MAX ((UINT64_C(1) << 53) - 1)

#define KBV_BASE_DRAWS 5
#define KBV_MAX_CONFIGS (4 + KBV_HIDDEN_MAX_EXTRA)                 /* D1..D4 and a problem's extras */
#define KBV_PLAN_DRAWS (KBV_BASE_DRAWS + KBV_MAX_CONFIGS + 4)   /* + D5..D8 */

/* What a derived seed is for. */
typedef enum kbv_seed_purpose {
    KBV_SEED_DRAW = 1,          /* index: position in the plan */
    KBV_SEED_PARAMS = 2,        /* index 0: the base parameters; 1: the D5 redraw */
    KBV_SEED_TRIAL = 3,         /* index: strict timing trial (fresh inputs) */
    KBV_SEED_PERTURB = 4,       /* index: strict timing trial (in-place changes) */
    KBV_SEED_AUDIT = 5,         /* index 0: the traced pass; 1: the race run */
    KBV_SEED_VALIDATE = 6,      /* index: the hidden config checked (eval/configs.h) */
} kbv_seed_purpose;

typedef struct kbv_planned_draw {
    kbv_draw draw;              /* distribution, seed and (extra configs) the config */
    char label[8];              /* "base#0".."base#4", "D1".."D8", an extra's "H5" */
    bool standard;              /* judged by standard (the 5 base draws) */
    bool verified;              /* judged by verified (base + the hidden configs) */
    bool redraw_params;         /* D5: parameters redrawn for this draw */
} kbv_planned_draw;

/* A hidden config left out of a plan, and why. */
typedef struct kbv_config_drop {
    char label[8];
    char reason[224];
} kbv_config_drop;

typedef struct kbv_draw_plan {
    int n;
    kbv_planned_draw d[KBV_PLAN_DRAWS];   /* base draws, hidden configs, D5..D8 */
    int n_standard, n_verified;           /* draws standard and verified judge */
    int verified_end;                     /* index after the last draw verified judges */
    int n_dropped;
    kbv_config_drop dropped[KBV_MAX_CONFIGS];
    kbv_draw params;            /* base parameters, drawn once per run */
    kbv_draw params_d5;         /* D5's redrawn parameters */
} kbv_draw_plan;

/* A fresh secret run seed from getrandom(2). */
kbv_status kbv_run_seed_new(uint64_t *seed);

/* Parses a decimal seed in [0, KBV_SEED_MAX]. */
kbv_status kbv_seed_parse(const char *s, uint64_t *seed);

/* The seed for (run seed, problem key such as "L1/19", purpose, index). */
uint64_t kbv_seed_derive(uint64_t run_seed, const char *problem_key, kbv_seed_purpose purpose,
                         uint32_t index);

/* The full plan of one problem: standard's 5 base draws; its hidden configs
 * (D1..D4 less those its definition omits, listed as dropped, then its
 * extras); D5..D8. A draw's seed depends on its label alone, not on which
 * configs a problem has. */
void kbv_draw_plan_make(uint64_t run_seed, const kbv_problem *def, kbv_draw_plan *plan);

/* Takes hidden config `label` out of the plan, listing it as dropped for
 * `reason`. false when the plan has no such config. */
bool kbv_draw_plan_drop(kbv_draw_plan *plan, const char *label, const char *reason);

/* Every hidden config of a problem, omitted ones included, in plan order
 * (D1..D4, then the extras), with seed 0; returns how many (<= KBV_MAX_CONFIGS). */
int kbv_hidden_configs(const kbv_problem *def, kbv_planned_draw *out);

/* Whether def's definition omits hidden config `label` (one of D1..D4). */
bool kbv_config_omitted(const kbv_problem *def, const char *label);

/* The draw a label names for problem def: "base", "D1".."D8" or one of its
 * extras' labels (case-insensitive); the seed is the caller's. */
bool kbv_draw_from_label(const kbv_problem *def, const char *label, kbv_draw *out);

#endif
