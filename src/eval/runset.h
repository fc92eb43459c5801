/* What to evaluate: the candidate files of run directories, and problem
 * selections such as "L1/1-32" or "L1/1,L1/5".
 *
 * A run directory belongs to one model (its basename) and holds files named
 * level_<L>_problem_<P>_sample_<S>.cu (or .c for the CPU backend). Every
 * entry of a run directory is accounted for: a candidate of the run's
 * device (whatever the entry is: a link, a directory or an empty file named
 * like a candidate is a sample that fails, see record/candidate_file.h), a
 * candidate for the other device, a KernelBench Python candidate (a job of
 * either device where this build hosts Python, else counted aside), kbv
 * generate's raw answer, a hidden file, or
 * something else. The scan looks at names and entry types only: it opens no
 * entry. */
#ifndef KBV_RUNSET_H
#define KBV_RUNSET_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

typedef enum kbv_cand_kind {
    KBV_CAND_CUDA = 0,
    KBV_CAND_C = 1,
    KBV_CAND_GEN_FAILED = 2,  /* level_..._sample_S.failed.json: kbv generate got no code */
    KBV_CAND_KERNELBENCH_PY = 3,  /* level_..._sample_S_kernel.py or _sample_S.py: KernelBench's
                                     own Python format (ModelNew), for either device, evaluated
                                     where the runner hosts Python (kbv_runset.take_python) */
} kbv_cand_kind;

typedef struct kbv_job {
    char model[128];
    char path[1024];
    int level, problem_id, sample;
    kbv_cand_kind kind;
} kbv_job;

/* Every entry of the run directories scanned is a job or one of these. */
typedef struct kbv_runset {
    kbv_job *jobs;
    int n, cap;
    int n_dirs;           /* run directories scanned */
    int other_device;     /* candidates for the other device (.cu on a CPU run, .c on a GPU run) */
    int kernelbench_py;   /* KernelBench Python candidates */
    int not_candidates;   /* entries not named like a candidate */
    int responses;        /* kbv generate's raw answers (.response.json) */
    int hidden;           /* names starting with '.' */
    bool take_python;     /* set before scanning: KernelBench Python candidates are jobs
                             (this build's runner hosts them), not counted aside */
} kbv_runset;

/* Parses "level_1_problem_19_sample_0.cu"; false when the name does not match. */
bool kbv_candidate_name_parse(const char *name, int *level, int *problem_id, int *sample,
                              kbv_cand_kind *kind);

/* Adds the candidates of `dir` whose kind is `want` (and its .failed.json
 * samples), in (problem, sample) order, and counts every other entry. When
 * notes is not NULL, says there what is not evaluated and why: the other
 * device's candidates, KernelBench Python candidates and entries not named
 * like a candidate, with the first few names of each. */
kbv_status kbv_runset_scan(const char *dir, kbv_cand_kind want, kbv_runset *rs, FILE *notes);
void kbv_runset_free(kbv_runset *rs);

/* A count of names with the first few kept, for notes: "a, b, c, d and 3
 * more". Names are kept printable (other bytes become '?'), so a file name
 * cannot put control sequences on a terminal. */
#define KBV_NAMES_SHOWN 4
typedef struct kbv_name_list {
    int n;
    char shown[KBV_NAMES_SHOWN][192];
} kbv_name_list;

void kbv_name_list_add(kbv_name_list *l, const char *name, const char *suffix);
void kbv_name_list_print(FILE *f, const kbv_name_list *l);

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
