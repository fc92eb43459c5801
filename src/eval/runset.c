#include "eval/runset.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads a decimal number of at most 9 digits at *p, advancing it. */
static bool read_uint(const char **p, int *out)
{
    const char *s = *p;
    int v = 0, digits = 0;
    while (isdigit((unsigned char)*s) && digits < 9) {
        v = v * 10 + (*s - '0');
        s++;
        digits++;
    }
    if (digits == 0 || isdigit((unsigned char)*s))
        return false;
    *out = v;
    *p = s;
    return true;
}

static bool skip_literal(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n))
        return false;
    *p += n;
    return true;
}

bool kbv_candidate_name_parse(const char *name, int *level, int *problem_id, int *sample,
                              kbv_cand_kind *kind)
{
    const char *p = name;
    int l, pr, s;
    if (!skip_literal(&p, "level_") || !read_uint(&p, &l) || !skip_literal(&p, "_problem_") ||
        !read_uint(&p, &pr) || !skip_literal(&p, "_sample_") || !read_uint(&p, &s))
        return false;
    kbv_cand_kind k;
    if (!strcmp(p, ".cu"))
        k = KBV_CAND_CUDA;
    else if (!strcmp(p, ".c"))
        k = KBV_CAND_C;
    else if (!strcmp(p, ".failed.json"))
        k = KBV_CAND_GEN_FAILED;
    else
        return false;
    *level = l;
    *problem_id = pr;
    *sample = s;
    *kind = k;
    return true;
}

static kbv_status push_job(kbv_runset *rs, const kbv_job *job)
{
    if (rs->n == rs->cap) {
        int cap = rs->cap ? rs->cap * 2 : 64;
        kbv_job *jobs = realloc(rs->jobs, (size_t)cap * sizeof *jobs);
        if (!jobs)
            return kbv_fail(KBV_ERR_NOMEM, "%d candidate files", cap);
        rs->jobs = jobs;
        rs->cap = cap;
    }
    rs->jobs[rs->n++] = *job;
    return KBV_OK;
}

static int cmp_job(const void *pa, const void *pb)
{
    const kbv_job *a = pa, *b = pb;
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->problem_id != b->problem_id)
        return a->problem_id < b->problem_id ? -1 : 1;
    return (a->sample > b->sample) - (a->sample < b->sample);
}

/* The model name: the directory's basename, trailing slashes ignored. */
static kbv_status model_name(const char *dir, char *out, size_t cap)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    size_t n = len - start;
    if (n == 0 || (n == 1 && dir[start] == '.') || (n == 2 && !strncmp(dir + start, "..", 2)))
        return kbv_fail(KBV_ERR_INVALID,
                        "run directory '%s' has no name to use as the model name", dir);
    if (n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "run directory name too long: %s", dir);
    memcpy(out, dir + start, n);
    out[n] = '\0';
    return KBV_OK;
}

kbv_status kbv_runset_scan(const char *dir, kbv_cand_kind want, kbv_runset *rs, FILE *notes)
{
    kbv_status st = KBV_OK;
    kbv_job job;
    memset(&job, 0, sizeof job);
    KBV_TRY(model_name(dir, job.model, sizeof job.model));
    DIR *d = opendir(dir);
    if (!d)
        return kbv_fail(KBV_ERR_IO, "cannot read run directory %s: %s", dir, strerror(errno));
    int first = rs->n, skipped = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        kbv_cand_kind kind;
        size_t len = strlen(e->d_name);
        if (len > 14 && !strcmp(e->d_name + len - 14, ".response.json"))
            continue;  /* kbv generate's raw answer, kept beside its candidate */
        if (!kbv_candidate_name_parse(e->d_name, &job.level, &job.problem_id, &job.sample,
                                      &kind)) {
            rs->ignored++;
            if (notes)
                fprintf(notes, "kbv: ignoring %s/%s (not named level_L_problem_P_sample_S.cu, "
                               ".c or .failed.json)\n", dir, e->d_name);
            continue;
        }
        /* a sample the model never produced fails on any device */
        if (kind != want && kind != KBV_CAND_GEN_FAILED) {
            skipped++;
            continue;
        }
        if (snprintf(job.path, sizeof job.path, "%s/%s", dir, e->d_name) >= (int)sizeof job.path)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "path too long: %s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(job.path, &sb) || !S_ISREG(sb.st_mode)) {
            rs->ignored++;
            if (notes)
                fprintf(notes, "kbv: ignoring %s (not a readable regular file)\n", job.path);
            continue;
        }
        job.kind = kind;
        KBV_TRY_GOTO(push_job(rs, &job), st, done);
        errno = 0;
    }
    if (errno)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading run directory %s: %s", dir, strerror(errno));
    if (skipped && notes)
        fprintf(notes, "kbv: %s: skipping %d %s file%s (this run is on the %s)\n", dir, skipped,
                want == KBV_CAND_C ? ".cu" : ".c", skipped == 1 ? "" : "s",
                want == KBV_CAND_C ? "CPU" : "GPU");
    rs->skipped_kind += skipped;
    qsort(rs->jobs + first, (size_t)(rs->n - first), sizeof *rs->jobs, cmp_job);
done:
    closedir(d);
    return st;
}

void kbv_runset_free(kbv_runset *rs)
{
    free(rs->jobs);
    memset(rs, 0, sizeof *rs);
}

kbv_status kbv_problem_set_parse(const char *s, kbv_problem_set *set)
{
    memset(set, 0, sizeof *set);
    const char *p = s;
    if (!p || !*p)
        return kbv_fail(KBV_ERR_PARSE, "empty problem selection");
    for (;;) {
        kbv_problem_range r;
        const char *item = p;
        if (*p == 'L' || *p == 'l')
            p++;
        if (!read_uint(&p, &r.level))
            goto bad;
        if (*p == '/') {
            p++;
            if (!read_uint(&p, &r.lo))
                goto bad;
            r.hi = r.lo;
            if (*p == '-') {
                p++;
                if (!read_uint(&p, &r.hi) || r.hi < r.lo)
                    goto bad;
            }
        } else {
            r.lo = 1;
            r.hi = INT_MAX;
        }
        if (*p != ',' && *p != '\0')
            goto bad;
        if (set->n == KBV_MAX_RANGES)
            return kbv_fail(KBV_ERR_PARSE, "problem selection '%s': more than %d items", s,
                            KBV_MAX_RANGES);
        set->r[set->n++] = r;
        if (*p == '\0')
            return KBV_OK;
        p++;
        continue;
    bad:
        return kbv_fail(KBV_ERR_PARSE,
                        "problem selection '%s': cannot read the item at '%s' (expected L1/19, "
                        "L1/1-32 or L1, comma-separated)", s, item);
    }
}

bool kbv_problem_set_contains(const kbv_problem_set *set, int level, int id)
{
    for (int i = 0; i < set->n; i++)
        if (set->r[i].level == level && id >= set->r[i].lo && id <= set->r[i].hi)
            return true;
    return false;
}
