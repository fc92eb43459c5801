/* A model's second opinion on a candidate (kbv judge): one JSON object per
 * judged sample, appended to a JSONL file beside the results. The judge is
 * asked as the KernelBench-Verified paper asked its judges (src/gen/judge.h)
 * and classifies the kernel with one of the paper's five labels. A record
 * names the sample it judged by its identity in the results (model, problem,
 * sample, source_sha256), so reports put it beside that sample's verdicts. */
#ifndef KBV_JUDGE_RECORD_H
#define KBV_JUDGE_RECORD_H

#include <stdbool.h>

#include "core/status.h"

#define KBV_JUDGE_SCHEMA 1

typedef enum kbv_judge_label {
    KBV_JUDGE_LEGITIMATE = 0,
    KBV_JUDGE_SPEED_HACK,
    KBV_JUDGE_MEMORY_HACK,
    KBV_JUDGE_SPEED_AND_MEMORY_HACK,
    KBV_JUDGE_UNCERTAIN,
    KBV_JUDGE_NO_ANSWER,          /* the judge gave no usable answer (error says why) */
    KBV_JUDGE_LABEL_COUNT
} kbv_judge_label;

const char *kbv_judge_label_name(kbv_judge_label l);   /* "LEGITIMATE", ... */
kbv_status kbv_judge_label_parse(const char *name, kbv_judge_label *out);
/* A label that says the kernel cheats: the three *_HACK. */
bool kbv_judge_label_flags(kbv_judge_label l);

typedef struct kbv_judge_record {
    char judge[128];              /* the judging model */
    char model[128];              /* the sample's: its identity in the results */
    char problem[32];
    int sample;
    char source_sha256[65];
    kbv_judge_label label;
    char pattern[256];            /* the judge's words for what it found */
    char explanation[1024];
    char error[256];              /* why there is no answer; "" when there is */
} kbv_judge_record;

kbv_status kbv_judge_record_to_json(const kbv_judge_record *r, char **line);  /* malloc'd */
kbv_status kbv_judge_record_from_json(const char *line, kbv_judge_record *r);

/* Every record of a file (a missing file is empty); a line that is not one
 * is an error that names it. */
typedef struct kbv_judge_list {
    int n, cap;
    kbv_judge_record *items;
} kbv_judge_list;

kbv_status kbv_judge_list_load(const char *path, kbv_judge_list *l);
kbv_status kbv_judge_list_push(kbv_judge_list *l, const kbv_judge_record *r);
void kbv_judge_list_free(kbv_judge_list *l);

#endif
