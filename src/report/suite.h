/* The problems every percentage of a report is over (DESIGN section 5):
 * per level, the suite's problems less the degenerate ones -- by default
 * 100, 96 and 47 for KernelBench levels 1-3, 243 pooled (the paper's list:
 * 100, 97, 50 and 247) -- where a problem with no sample, or whose
 * generation failed, counts as failed. The suite is kbv's
 * registry, KernelBench's levels 1-3 as the paper has them (so a level kbv
 * defines only in part still has the paper's denominator), and any problem
 * a record names. Which problems are degenerate is data, read by one
 * function (kbv_degenerate_load): by default what `kbv audit` found at
 * full size on an H200 (docs/audit_h200.jsonl), or the paper's list. */
#ifndef KBV_SUITE_H
#define KBV_SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef struct kbv_suite_problem {
    int level, id;
    char key[16];                /* "L1/19" */
    bool degenerate;             /* left out of every aggregate */
    bool in_registry;            /* kbv defines it (it can be evaluated) */
} kbv_suite_problem;

typedef struct kbv_suite {
    int n, cap;
    kbv_suite_problem *p;        /* sorted by level, then id */
    char degenerate_from[256];   /* where the degenerate list came from, in words */
} kbv_suite;

#define KBV_DEGENERATE_MAX 64

/* Problems excluded as degenerate, and why. */
typedef struct kbv_degenerate_list {
    int n;
    struct {
        int level, id;
        char why[160];
    } items[KBV_DEGENERATE_MAX];
    char source[256];            /* "the paper's list (...)" or the file read */
} kbv_degenerate_list;

/* The audit's findings kbv ships (in kbv's docs directory), and the word
 * that names the paper's own list instead of a file. */
#define KBV_DEGENERATE_AUDIT "audit_h200.jsonl"
#define KBV_DEGENERATE_PAPER "paper"

/* The list of degenerate problems. path NULL: the audit's findings
 * (KBV_DEGENERATE_AUDIT: L2/23, L2/36, L2/80, L2/83, L3/28, L3/36, L3/37);
 * "paper": the paper's exclusions (L2/23, L2/80, L2/83). Otherwise a file of either
 * `kbv audit --json` lines (objects with "problem" and "degenerate"; those
 * with "degenerate": true are taken) or lines holding a problem key ("L2/23",
 * anything after it on the line is the reason; blank lines and lines
 * starting with '#' are skipped). A line that is neither is an error that
 * names it: a list read wrong would change every denominator. */
kbv_status kbv_degenerate_load(const char *path, kbv_degenerate_list *out);
bool kbv_degenerate_has(const kbv_degenerate_list *l, int level, int id);

/* Adds a problem (nothing when it is there already). */
kbv_status kbv_suite_add(kbv_suite *s, int level, int id);
/* Every problem of kbv's registry. */
kbv_status kbv_suite_add_registry(kbv_suite *s);
/* KernelBench levels 1-3 as the paper ran them: ids 1-100, 1-100, 1-50. */
kbv_status kbv_suite_add_paper(kbv_suite *s);
/* Marks the degenerate problems of l (adding any the suite lacks). */
kbv_status kbv_suite_exclude(kbv_suite *s, const kbv_degenerate_list *l);
/* The registry and the paper's levels, with the degenerate problems of the
 * list at degenerate_path (as kbv_degenerate_load takes it). */
kbv_status kbv_suite_default(const char *degenerate_path, kbv_suite *s);
kbv_status kbv_suite_copy(const kbv_suite *from, kbv_suite *to);

/* The problem's index, -1 when the suite lacks it. */
int kbv_suite_find(const kbv_suite *s, int level, int id);
/* Problems of a level (level 0: every level), degenerate ones left out or not. */
int kbv_suite_count(const kbv_suite *s, int level, bool with_degenerate);
void kbv_suite_free(kbv_suite *s);

#endif
