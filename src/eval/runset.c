#include "eval/runset.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
    else if (!strcmp(p, "_kernel.py") || !strcmp(p, ".py"))
        k = KBV_CAND_KERNELBENCH_PY;
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

void kbv_name_list_add(kbv_name_list *l, const char *name, const char *suffix)
{
    if (l->n < KBV_NAMES_SHOWN) {
        char *out = l->shown[l->n];
        size_t cap = sizeof l->shown[0], k = 0;
        for (const unsigned char *p = (const unsigned char *)name; *p && k + 1 < cap; p++, k++)
            out[k] = *p >= 0x20 && *p < 0x7f ? (char)*p : '?';
        out[k] = '\0';
        if (suffix)
            snprintf(out + k, cap - k, "%s", suffix);
    }
    l->n++;
}

void kbv_name_list_print(FILE *f, const kbv_name_list *l)
{
    int shown = l->n < KBV_NAMES_SHOWN ? l->n : KBV_NAMES_SHOWN;
    for (int i = 0; i < shown; i++)
        fprintf(f, "%s%s", i == 0 ? "" : i + 1 == l->n ? " and " : ", ", l->shown[i]);
    if (l->n > shown)
        fprintf(f, " and %d more", l->n - shown);
}

/* What a listed entry is when it is not a plain file: " (a directory)". */
static const char *entry_type_suffix(int dir_fd, const struct dirent *e)
{
    unsigned char type = e->d_type;
    struct stat sb;
    if (type == DT_UNKNOWN && fstatat(dir_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
        type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISLNK(sb.st_mode) ? DT_LNK
             : S_ISFIFO(sb.st_mode) ? DT_FIFO : S_ISSOCK(sb.st_mode) ? DT_SOCK
             : S_ISREG(sb.st_mode) ? DT_REG : DT_CHR;
    switch (type) {
    case DT_DIR: return " (a directory)";
    case DT_LNK: return " (a symbolic link)";
    case DT_FIFO: return " (a fifo)";
    case DT_SOCK: return " (a socket)";
    case DT_CHR:
    case DT_BLK: return " (a device)";
    default: return NULL;
    }
}

static bool is_response(const char *name)
{
    size_t len = strlen(name);
    return len > 14 && !strcmp(name + len - 14, ".response.json");
}

/* The scan's notes on what of dir is not evaluated, and why. */
static void scan_notes(FILE *notes, const char *dir, kbv_cand_kind want, int other_device,
                       const kbv_name_list *python, const kbv_name_list *others,
                       bool take_python)
{
    if (other_device)
        fprintf(notes, "kbv: %s: skipping %d %s file%s (this run is on the %s)\n", dir,
                other_device, want == KBV_CAND_C ? ".cu" : ".c", other_device == 1 ? "" : "s",
                want == KBV_CAND_C ? "CPU" : "GPU");
    if (python->n) {
        fprintf(notes, "kbv: %s: %d KernelBench Python candidate%s not evaluated (", dir,
                python->n, python->n == 1 ? "" : "s");
        kbv_name_list_print(notes, python);
        fprintf(notes, "): this build of kbv does not evaluate KernelBench's Python format "
                       "(ModelNew); a kbv candidate is a .cu or .c file that implements "
                       "kbv_forward (docs/ABI.md)\n");
    }
    if (others->n) {
        fprintf(notes, "kbv: %s: %d entr%s not evaluated, not named like a candidate "
                       "(level_L_problem_P_sample_S%s): ", dir, others->n,
                others->n == 1 ? "y" : "ies",
                take_python ? ".cu, .c, _kernel.py, .py or .failed.json" : ".cu, .c or .failed.json");
        kbv_name_list_print(notes, others);
        fprintf(notes, "\n");
    }
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
    int first = rs->n, other_device = 0;
    kbv_name_list python = {0}, others = {0};
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        kbv_cand_kind kind;
        if (!strcmp(name, ".") || !strcmp(name, "..")) {
            /* not entries */
        } else if (name[0] == '.') {
            rs->hidden++;
        } else if (is_response(name)) {
            rs->responses++;   /* kbv generate's raw answer, kept beside its candidate */
        } else if (!kbv_candidate_name_parse(name, &job.level, &job.problem_id, &job.sample,
                                             &kind)) {
            rs->not_candidates++;
            kbv_name_list_add(&others, name, entry_type_suffix(dirfd(d), e));
        } else if (kind == KBV_CAND_KERNELBENCH_PY && !rs->take_python) {
            rs->kernelbench_py++;
            kbv_name_list_add(&python, name, NULL);
        } else if (kind != want && kind != KBV_CAND_GEN_FAILED &&
                   kind != KBV_CAND_KERNELBENCH_PY) {
            other_device++;   /* (a sample the model never produced fails on any device) */
        } else {
            /* whatever the entry is: reading it decides (record/candidate_file.h) */
            if (snprintf(job.path, sizeof job.path, "%s/%s", dir, name) >= (int)sizeof job.path)
                KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "path too long: %s/%s", dir, name);
            job.kind = kind;
            KBV_TRY_GOTO(push_job(rs, &job), st, done);
        }
        errno = 0;
    }
    if (errno)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading run directory %s: %s", dir, strerror(errno));
    if (notes)
        scan_notes(notes, dir, want, other_device, &python, &others, rs->take_python);
    rs->other_device += other_device;
    rs->n_dirs++;
    if (rs->n > first)   /* jobs is NULL until the first one */
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
