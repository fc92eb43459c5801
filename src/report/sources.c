#include "report/sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/candidate_file.h"
#include "graph/problem.h"
#include "graph/torch_render.h"

kbv_status kbv_source_find(const kbv_record *r, const char *const *inputs, int n, kbv_source *s)
{
    memset(s, 0, sizeof *s);
    s->state = KBV_SOURCE_MISSING;
    if (!r->file[0])
        return KBV_OK;
    kbv_candidate_file cf;
    memset(&cf, 0, sizeof cf);
    char path[2100];
    for (int k = -1; k < n; k++) {
        if (k < 0) {
            snprintf(path, sizeof path, "%s", r->file);
        } else {
            const char *slash = strrchr(inputs[k], '/');
            if (r->file[0] == '/' || !slash)
                continue;
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - inputs[k]), inputs[k], r->file);
        }
        kbv_candidate_file_free(&cf);
        kbv_status st = kbv_candidate_file_read(path, &cf);
        if (st != KBV_OK) {
            kbv_candidate_file_free(&cf);
            return kbv_relay_at(__FILE__, __LINE__, st);
        }
        if (cf.defect == KBV_CANDIDATE_MISSING)
            continue;
        snprintf(s->where, sizeof s->where, "%s", path);
        if (cf.defect == KBV_CANDIDATE_OK && !strcmp(cf.identity, r->source_sha256)) {
            s->state = KBV_SOURCE_FOUND;
            s->bytes = cf.bytes;
            s->len = cf.len;
            cf.bytes = NULL;
            break;
        }
        s->state = KBV_SOURCE_CHANGED;
        snprintf(s->why, sizeof s->why, "%s",
                 cf.defect != KBV_CANDIDATE_OK ? cf.detail : "its SHA-256 differs");
    }
    kbv_candidate_file_free(&cf);
    return KBV_OK;
}

void kbv_source_free(kbv_source *s)
{
    free(s->bytes);
    memset(s, 0, sizeof *s);
}

kbv_status kbv_reference_render(const kbv_record *r, const char *problem_key, char **text)
{
    *text = NULL;
    const kbv_problem *def = kbv_problem_find(problem_key);
    if (!def)
        return kbv_fail(KBV_ERR_NOT_FOUND, "%s is not a problem this kbv defines", problem_key);
    size_t len = 0;
    FILE *m = open_memstream(text, &len);
    if (!m)
        return kbv_fail(KBV_ERR_NOMEM, "rendering %s", problem_key);
    kbv_size size = !strcmp(r->size, "small") ? KBV_SIZE_SMALL : KBV_SIZE_FULL;
    kbv_status st = kbv_render_torch(def, size, m);
    fclose(m);
    if (st != KBV_OK) {
        free(*text);
        *text = NULL;
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    return KBV_OK;
}
