/* What to evaluate: the candidate files of run directories, and problem
 * selections such as "L1/1-32" or "L1/1,L1/5".
 *
 * A run directory belongs to one model (its basename) and holds files named
 * level_<L>_problem_<P>_sample_<S>.cu (or .c for the CPU backend). */
#ifndef KBV_RUNSET_H
#define KBV_RUNSET_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

typedef enum kbv_cand_kind {
    KBV_CAND_CUDA = 0,
    KBV_CAND_C = 1,
    KBV_CAND_GEN_FAILED = 2,  /* level_..._sample_S.failed.json: kbv generate got no code */
} kbv_cand_kind;

typedef struct kbv_job {
    char model[128];
    char path[1024];
    int level, problem_id, sample;
    kbv_cand_kind kind;
} kbv_job;

typedef struct kbv_runset {
    kbv_job *jobs;
    int n, cap;
    int skipped_kind;     /* candidates for the other device */
    int ignored;          /* files not named like a candidate */
} kbv_runset;

/* Parses "level_1_problem_19_sample_0.cu"; false when the name does not match. */
bool kbv_candidate_name_parse(const char *name, int *level, int *problem_id, int *sample,
                              kbv_cand_kind *kind);

/* Adds the candidates of `dir` whose kind is `want`, in (problem, sample)
 * order. Skipped and ignored files are counted, and each is noted on `notes`
 * when it is not NULL. */
kbv_status kbv_runset_scan(const char *dir, kbv_cand_kind want, kbv_runset *rs, FILE *notes);
void kbv_runset_free(kbv_runset *rs);

/* A problem selection: comma-separated items "L1/19", "L1/1-32" or "L1"
 * (the whole level); the "L" is optional. */
#define KBV_MAX_RANGES 64
typedef struct kbv_problem_range {
    int level, lo, hi;    /* ids lo..hi inclusive */
} kbv_problem_range;

typedef struct kbv_problem_set {
    int n;
    kbv_problem_range r[KBV_MAX_RANGES];
} kbv_problem_set;

kbv_status kbv_problem_set_parse(const char *s, kbv_problem_set *set);
bool kbv_problem_set_contains(const kbv_problem_set *set, int level, int id);

#endif
