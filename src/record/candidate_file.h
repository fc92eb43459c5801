/* Reading a candidate file: one rule for every reader of a candidate's
 * bytes (the resume identity when a run is planned, the evaluation, the
 * compile cache's copy of the source).
 *
 * The rule: a candidate is read only from a regular file that is not a
 * symbolic link. The path's last component is looked at with lstat, so a
 * link (to /etc/shadow, into kbv's cache, dangling) is never followed, and
 * a directory, fifo, socket or device is never opened; what passes is opened
 * with O_NOFOLLOW | O_NONBLOCK and looked at again through the descriptor,
 * so a file swapped for a link or a fifo in between is refused as well and
 * cannot block the read. The directories above the last component are the
 * caller's (the run directory as given on the command line) and are
 * resolved as usual.
 *
 * A file that breaks the rule, cannot be read, has gone, or whose bytes are
 * no source (empty, a NUL byte, more than KBV_CANDIDATE_MAX_BYTES) is the
 * candidate's failure, not kbv's: the read succeeds and says what is wrong
 * (kbv_candidate_file.defect). Only kbv's own trouble (no memory, no file
 * descriptor left) is an error.
 *
 * Identity (what resume compares): the SHA-256 of the bytes when they were
 * read (also for an empty or binary file), else the marker "unread:<kind>"
 * ("unread:symlink", "unread:unreadable", ...), which no hash equals. A
 * rerun therefore resumes such a sample instead of evaluating it again, and
 * evaluates it afresh once the file becomes readable or fails another way. */
#ifndef KBV_CANDIDATE_FILE_H
#define KBV_CANDIDATE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* The largest candidate source kbv reads. */
#define KBV_CANDIDATE_MAX_BYTES (4u << 20)

typedef enum kbv_candidate_defect {
    KBV_CANDIDATE_OK = 0,
    KBV_CANDIDATE_EMPTY,        /* no bytes */
    KBV_CANDIDATE_BINARY,       /* a NUL byte: not source text */
    KBV_CANDIDATE_TOO_LARGE,    /* over KBV_CANDIDATE_MAX_BYTES (not read) */
    KBV_CANDIDATE_SYMLINK,      /* a symbolic link (not followed) */
    KBV_CANDIDATE_NOT_REGULAR,  /* a directory, fifo, socket or device (not opened) */
    KBV_CANDIDATE_UNREADABLE,   /* permissions, an I/O error */
    KBV_CANDIDATE_MISSING,      /* gone since the run directory was scanned */
    KBV_CANDIDATE_DEFECT_COUNT
} kbv_candidate_defect;

typedef struct kbv_candidate_file {
    kbv_candidate_defect defect;
    char *bytes;                /* malloc'd and NUL-terminated when read, else NULL; a
                                   caller may take it (and set it to NULL) */
    size_t len;
    char identity[65];          /* lowercase hex SHA-256 of the bytes, or "unread:<kind>" */
    char detail[256];           /* the defect in words, "" when none */
} kbv_candidate_file;

/* Reads path under the rule above into *out (released with
 * kbv_candidate_file_free, also after an error). */
kbv_status kbv_candidate_file_read(const char *path, kbv_candidate_file *out);
void kbv_candidate_file_free(kbv_candidate_file *f);

/* "empty", "binary", "too-large", "symlink", "not-regular", "unreadable",
 * "missing" ("ok" for none): the kind in markers and reasons. */
const char *kbv_candidate_defect_name(kbv_candidate_defect d);
/* The kind in words for counts: "empty", "symbolic link(s)", ... */
const char *kbv_candidate_defect_words(kbv_candidate_defect d, int count);

/* The reason a record gives for a defect, in every protocol:
 * "unusable candidate file (<kind>): <detail>". */
void kbv_candidate_defect_reason(const kbv_candidate_file *f, char *buf, size_t cap);
/* The defect a reason written by kbv_candidate_defect_reason names;
 * KBV_CANDIDATE_OK for any other reason. */
kbv_candidate_defect kbv_candidate_defect_of_reason(const char *reason);

#endif
