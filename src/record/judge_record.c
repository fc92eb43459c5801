#include "record/judge_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const char *const label_names[KBV_JUDGE_LABEL_COUNT] = {
    "LEGITIMATE", "SPEED_HACK", "MEMORY_HACK", "SPEED_AND_MEMORY_HACK", "UNCERTAIN", "NO_ANSWER"};

const char *kbv_judge_label_name(kbv_judge_label l)
{
    return (unsigned)l < KBV_JUDGE_LABEL_COUNT ? label_names[l] : "?";
}

kbv_status kbv_judge_label_parse(const char *name, kbv_judge_label *out)
{
    for (int i = 0; i < KBV_JUDGE_LABEL_COUNT; i++)
        if (!strcmp(name, label_names[i])) {
            *out = (kbv_judge_label)i;
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_PARSE, "unknown judge label '%.40s'", name);
}

bool kbv_judge_label_flags(kbv_judge_label l)
{
    return l == KBV_JUDGE_SPEED_HACK || l == KBV_JUDGE_MEMORY_HACK ||
           l == KBV_JUDGE_SPEED_AND_MEMORY_HACK;
}

kbv_status kbv_judge_record_to_json(const kbv_judge_record *r, char **line)
{
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s}", "schema",
                          KBV_JUDGE_SCHEMA, "kind", "judge", "judge", r->judge, "model",
                          r->model, "problem", r->problem, "sample", r->sample, "source_sha256",
                          r->source_sha256, "label", kbv_judge_label_name(r->label), "pattern",
                          r->pattern, "explanation", r->explanation, "error", r->error);
    if (!o)
        return kbv_fail(KBV_ERR_INVALID, "cannot encode the judgement of %s sample %d (invalid "
                        "UTF-8 in the answer?)", r->problem, r->sample);
    *line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!*line)
        return kbv_fail(KBV_ERR_NOMEM, "serialising a judgement");
    return KBV_OK;
}

static void copy_str(const json_t *o, const char *key, char *dst, size_t cap)
{
    const char *v = json_string_value(json_object_get(o, key));
    snprintf(dst, cap, "%s", v ? v : "");
}

kbv_status kbv_judge_record_from_json(const char *line, kbv_judge_record *r)
{
    memset(r, 0, sizeof *r);
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    const char *kind = o ? json_string_value(json_object_get(o, "kind")) : NULL;
    const json_t *schema = o ? json_object_get(o, "schema") : NULL;
    const char *label = o ? json_string_value(json_object_get(o, "label")) : NULL;
    kbv_status st = KBV_OK;
    if (!kind || strcmp(kind, "judge") || !json_is_integer(schema) || !label ||
        !json_is_string(json_object_get(o, "model")) ||
        !json_is_string(json_object_get(o, "problem")) ||
        !json_is_integer(json_object_get(o, "sample")))
        st = kbv_fail(KBV_ERR_PARSE, "not a judgement (kbv judge's \"kind\": \"judge\" with a "
                      "model, problem, sample and label)");
    else if (json_integer_value(schema) > KBV_JUDGE_SCHEMA)
        st = kbv_fail(KBV_ERR_UNSUPPORTED, "a judgement of schema %lld, written by a newer kbv",
                      (long long)json_integer_value(schema));
    else
        st = kbv_judge_label_parse(label, &r->label);
    if (st == KBV_OK) {
        copy_str(o, "judge", r->judge, sizeof r->judge);
        copy_str(o, "model", r->model, sizeof r->model);
        copy_str(o, "problem", r->problem, sizeof r->problem);
        r->sample = (int)json_integer_value(json_object_get(o, "sample"));
        copy_str(o, "source_sha256", r->source_sha256, sizeof r->source_sha256);
        copy_str(o, "pattern", r->pattern, sizeof r->pattern);
        copy_str(o, "explanation", r->explanation, sizeof r->explanation);
        copy_str(o, "error", r->error, sizeof r->error);
    }
    json_decref(o);
    return st;
}

kbv_status kbv_judge_list_push(kbv_judge_list *l, const kbv_judge_record *r)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        kbv_judge_record *g = realloc(l->items, (size_t)cap * sizeof *g);
        if (!g)
            return kbv_fail(KBV_ERR_NOMEM, "%d judgements", cap);
        l->items = g;
        l->cap = cap;
    }
    l->items[l->n++] = *r;
    return KBV_OK;
}

kbv_status kbv_judge_list_load(const char *path, kbv_judge_list *l)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return KBV_OK;
        return kbv_fail(KBV_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    kbv_judge_record r;
    while (st == KBV_OK && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        st = kbv_judge_record_from_json(line, &r);
        if (st != KBV_OK) {
            char why[256];
            snprintf(why, sizeof why, "%s", kbv_last_error());
            kbv_clear_error();
            st = kbv_fail(st, "%s line %d: %s", path, lineno, why);
        } else {
            st = kbv_judge_list_push(l, &r);
        }
    }
    free(line);
    fclose(f);
    if (st != KBV_OK)
        kbv_judge_list_free(l);
    return st;
}

void kbv_judge_list_free(kbv_judge_list *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}
