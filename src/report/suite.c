#include "report/suite.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/paths.h"
#include "graph/problem_def.h"

/* KernelBench levels 1-3, the suite of DESIGN section 2: ids 1..count. */
static const struct {
    int level, count;
} paper_levels[] = {{1, 100}, {2, 100}, {3, 50}};

/* The paper's exclusions (KernelBench-Verified, appendix "Degenerate
 * problems"): outputs that are constant zero for any input. Kept for
 * `--degenerate paper`; the default is what `kbv audit` found. */
static const struct {
    int level, id;
    const char *why;
} paper_degenerate[] = {
    {2, 23, "the paper's exclusion: output constant (zero) for any input"},
    {2, 80, "the paper's exclusion: output constant (zero) for any input"},
    {2, 83, "the paper's exclusion: output constant (zero) for any input"},
};

/* ---- the degenerate list ------------------------------------------------ */

static kbv_status add_degenerate(kbv_degenerate_list *l, int level, int id, const char *why)
{
    if (kbv_degenerate_has(l, level, id))
        return KBV_OK;
    if (l->n == KBV_DEGENERATE_MAX)
        return kbv_fail(KBV_ERR_INVALID, "more than %d degenerate problems in %s",
                        KBV_DEGENERATE_MAX, l->source);
    l->items[l->n].level = level;
    l->items[l->n].id = id;
    snprintf(l->items[l->n].why, sizeof l->items[0].why, "%s", why);
    l->n++;
    return KBV_OK;
}

bool kbv_degenerate_has(const kbv_degenerate_list *l, int level, int id)
{
    for (int i = 0; i < l->n; i++)
        if (l->items[i].level == level && l->items[i].id == id)
            return true;
    return false;
}

/* "L2/23" (or "l2/23") at s; the rest of the line in *rest. */
static bool parse_key(const char *s, int *level, int *id, const char **rest)
{
    int used = 0;
    if ((s[0] != 'L' && s[0] != 'l') || sscanf(s + 1, "%d/%d%n", level, id, &used) != 2 ||
        *level <= 0 || *id <= 0)
        return false;
    *rest = s + 1 + used;
    return **rest == '\0' || isspace((unsigned char)**rest);
}

/* Why the audit called a problem degenerate, from its line's fields. */
static const char *audit_reason(const json_t *o)
{
    static char why[160];
    const json_t *ignores = json_object_get(o, "ignores");
    int n = snprintf(why, sizeof why, "kbv audit: %s",
                     json_is_true(json_object_get(o, "constant"))
                         ? "the output is the same on every draw"
                         : "the output does not depend on every input");
    size_t i;
    const json_t *name;
    json_array_foreach(ignores, i, name)
        if (n > 0 && (size_t)n < sizeof why)
            n += snprintf(why + n, sizeof why - (size_t)n, "%s%s", i ? ", " : "; ignores ",
                          json_string_value(name) ? json_string_value(name) : "?");
    return why;
}

static kbv_status read_line(kbv_degenerate_list *l, const char *path, int lineno, char *line)
{
    size_t len = strlen(line);
    while (len && isspace((unsigned char)line[len - 1]))
        line[--len] = '\0';
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0' || *s == '#')
        return KBV_OK;
    int level, id;
    if (*s == '{') {
        json_error_t jerr;
        json_t *o = json_loads(s, 0, &jerr);
        const char *key = o ? json_string_value(json_object_get(o, "problem")) : NULL;
        const json_t *deg = o ? json_object_get(o, "degenerate") : NULL;
        const char *rest;
        kbv_status st = KBV_OK;
        if (!key || !json_is_boolean(deg) || !parse_key(key, &level, &id, &rest))
            st = kbv_fail(KBV_ERR_PARSE, "%s line %d: not a kbv audit --json line (an object "
                          "with \"problem\" and \"degenerate\")", path, lineno);
        else if (json_is_true(deg))
            st = add_degenerate(l, level, id, audit_reason(o));
        json_decref(o);
        return st;
    }
    const char *rest;
    if (!parse_key(s, &level, &id, &rest))
        return kbv_fail(KBV_ERR_PARSE, "%s line %d: expected a problem key such as L2/23, got "
                        "'%.40s'", path, lineno, s);
    while (isspace((unsigned char)*rest))
        rest++;
    return add_degenerate(l, level, id, *rest ? rest : "listed as degenerate");
}

kbv_status kbv_degenerate_load(const char *path, kbv_degenerate_list *out)
{
    memset(out, 0, sizeof *out);
    if (path && !strcmp(path, KBV_DEGENERATE_PAPER)) {
        snprintf(out->source, sizeof out->source,
                 "the paper's list (KernelBench-Verified excluded L2/23, L2/80 and L2/83)");
        for (size_t i = 0; i < sizeof paper_degenerate / sizeof paper_degenerate[0]; i++)
            KBV_TRY(add_degenerate(out, paper_degenerate[i].level, paper_degenerate[i].id,
                                   paper_degenerate[i].why));
        return KBV_OK;
    }
    char found[4096];
    if (!path) {
        KBV_TRY(kbv_data_path("KBV_DOCS_DIR", "docs", KBV_DEGENERATE_AUDIT, found, sizeof found));
        path = found;
        snprintf(out->source, sizeof out->source,
                 "kbv audit's findings at full size on an H200 (docs/%s)", KBV_DEGENERATE_AUDIT);
    } else {
        snprintf(out->source, sizeof out->source, "%s", path);
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return kbv_fail(errno == ENOENT ? KBV_ERR_NOT_FOUND : KBV_ERR_IO,
                        "cannot read the degenerate list %s: %s", path, strerror(errno));
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    errno = 0;
    while (st == KBV_OK && getline(&line, &cap, f) >= 0)
        st = read_line(out, path, ++lineno, line);
    if (st == KBV_OK && ferror(f))
        st = kbv_fail(KBV_ERR_IO, "reading %s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return st;
}

/* ---- the suite ------------------------------------------------------------ */

static int lower_bound(const kbv_suite *s, int level, int id)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const kbv_suite_problem *p = &s->p[mid];
        if (p->level < level || (p->level == level && p->id < id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int kbv_suite_find(const kbv_suite *s, int level, int id)
{
    int i = lower_bound(s, level, id);
    return i < s->n && s->p[i].level == level && s->p[i].id == id ? i : -1;
}

kbv_status kbv_suite_add(kbv_suite *s, int level, int id)
{
    int i = lower_bound(s, level, id);
    if (i < s->n && s->p[i].level == level && s->p[i].id == id)
        return KBV_OK;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 256;
        kbv_suite_problem *p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p)
            return kbv_fail(KBV_ERR_NOMEM, "a suite of %d problems", cap);
        s->p = p;
        s->cap = cap;
    }
    memmove(&s->p[i + 1], &s->p[i], (size_t)(s->n - i) * sizeof *s->p);
    kbv_suite_problem *q = &s->p[i];
    memset(q, 0, sizeof *q);
    q->level = level;
    q->id = id;
    snprintf(q->key, sizeof q->key, "L%d/%d", level, id);
    s->n++;
    return KBV_OK;
}

kbv_status kbv_suite_add_registry(kbv_suite *s)
{
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem_def *def = kbv_problem_at(i);
        KBV_TRY(kbv_suite_add(s, def->level, def->id));
        s->p[kbv_suite_find(s, def->level, def->id)].in_registry = true;
    }
    return KBV_OK;
}

kbv_status kbv_suite_add_paper(kbv_suite *s)
{
    for (size_t l = 0; l < sizeof paper_levels / sizeof paper_levels[0]; l++)
        for (int id = 1; id <= paper_levels[l].count; id++)
            KBV_TRY(kbv_suite_add(s, paper_levels[l].level, id));
    return KBV_OK;
}

kbv_status kbv_suite_exclude(kbv_suite *s, const kbv_degenerate_list *l)
{
    for (int i = 0; i < l->n; i++) {
        KBV_TRY(kbv_suite_add(s, l->items[i].level, l->items[i].id));
        s->p[kbv_suite_find(s, l->items[i].level, l->items[i].id)].degenerate = true;
    }
    snprintf(s->degenerate_from, sizeof s->degenerate_from, "%s", l->source);
    return KBV_OK;
}

kbv_status kbv_suite_default(const char *degenerate_path, kbv_suite *s)
{
    kbv_degenerate_list l;
    memset(s, 0, sizeof *s);
    kbv_status st = kbv_degenerate_load(degenerate_path, &l);
    if (st == KBV_OK)
        st = kbv_suite_add_registry(s);
    if (st == KBV_OK)
        st = kbv_suite_add_paper(s);
    if (st == KBV_OK)
        st = kbv_suite_exclude(s, &l);
    if (st != KBV_OK) {
        kbv_suite_free(s);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    return KBV_OK;
}

kbv_status kbv_suite_copy(const kbv_suite *from, kbv_suite *to)
{
    memset(to, 0, sizeof *to);
    snprintf(to->degenerate_from, sizeof to->degenerate_from, "%s", from->degenerate_from);
    if (from->n == 0)
        return KBV_OK;
    to->p = malloc((size_t)from->n * sizeof *to->p);
    if (!to->p)
        return kbv_fail(KBV_ERR_NOMEM, "a suite of %d problems", from->n);
    memcpy(to->p, from->p, (size_t)from->n * sizeof *to->p);
    to->n = to->cap = from->n;
    return KBV_OK;
}

int kbv_suite_count(const kbv_suite *s, int level, bool with_degenerate)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += (level == 0 || s->p[i].level == level) && (with_degenerate || !s->p[i].degenerate);
    return n;
}

void kbv_suite_free(kbv_suite *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}
