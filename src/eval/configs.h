/* A problem's hidden configs checked at one size (DESIGN section 4) as the
 * paper's generator checked them (its scripts/generate_hidden_inputs.py):
 * one draw of each config through the fp32 reference, and a config whose
 * output is not finite everywhere is dropped. The definition's omissions
 * (the paper's table) are checked too, so the audit can say whether they
 * still hold, but they stay omitted either way.
 *
 * The draws use public seeds (from the problem key alone, not the run's
 * secret seed): which configs a problem has does not change between runs. */
#ifndef KBV_CONFIGS_H
#define KBV_CONFIGS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "dist/draws.h"
#include "exec/backend.h"
#include "graph/graph.h"

typedef struct kbv_config_verdict {
    char label[8];               /* "D1".."D4", an extra's "H5" */
    bool omitted;                /* the definition leaves it out */
    int64_t nonfinite, n;        /* the reference's elements that are not finite, of n */
} kbv_config_verdict;

typedef struct kbv_config_check {
    int n;
    kbv_config_verdict c[KBV_MAX_CONFIGS];   /* kbv_hidden_configs order */
} kbv_config_check;

/* Checks every hidden config of g's problem at g's size on fp32 (the fp32
 * backend: PyTorch's defaults, the paper's reference). */
kbv_status kbv_configs_check(kbv_backend *fp32, const kbv_graph *g, kbv_config_check *out);

/* Drops from plan every config the check found not finite, with the reason
 * (a config the definition omits is already out). */
void kbv_draw_plan_check(kbv_draw_plan *plan, const kbv_config_check *check);

/* The checks an evaluator has made, by problem and size: a problem's
 * configs are checked once, when its first sample is evaluated. */
typedef struct kbv_config_cache kbv_config_cache;

/* The check of g from the cache (made and kept on a miss; *cache is created
 * on first use). *out stays valid until kbv_config_cache_free. */
kbv_status kbv_config_cache_get(kbv_config_cache **cache, kbv_backend *fp32, const kbv_graph *g,
                                const kbv_config_check **out);
void kbv_config_cache_free(kbv_config_cache *cache);

#endif
