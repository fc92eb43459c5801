/* A record's candidate source, for the page's drill-down and kbv judge:
 * the file the record names, looked for as it is (relative to where kbv
 * eval ran) and then beside each results file, read under the candidates'
 * one rule (eval/candidate_file.h: never a link, a fifo or a device), and
 * taken only when its SHA-256 is the record's source_sha256 -- the bytes
 * that were evaluated. */
#ifndef KBV_SOURCES_H
#define KBV_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "record/results.h"

typedef enum kbv_source_state {
    KBV_SOURCE_FOUND = 0,      /* the bytes evaluated */
    KBV_SOURCE_CHANGED,        /* a file is there, not the one evaluated (or not usable) */
    KBV_SOURCE_MISSING,        /* no file at any of the places, or the record names none */
} kbv_source_state;

typedef struct kbv_source {
    kbv_source_state state;
    char *bytes;               /* malloc'd, NUL-terminated when FOUND */
    size_t len;
    char where[2100];          /* the path read (FOUND, CHANGED) */
    char why[256];             /* CHANGED: what differs */
} kbv_source;

/* Looks for r's source beside the results files `inputs` (n of them). Only
 * kbv's own trouble (no memory) is an error. */
kbv_status kbv_source_find(const kbv_record *r, const char *const *inputs, int n, kbv_source *s);
void kbv_source_free(kbv_source *s);

/* The problem's PyTorch reference at the record's size, as kbv show --torch
 * prints it (the prompt's reference), malloc'd; KBV_ERR_NOT_FOUND when this
 * kbv does not define the problem. */
kbv_status kbv_reference_render(const kbv_record *r, const char *problem_key, char **text);

#endif
