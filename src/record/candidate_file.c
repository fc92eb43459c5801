#include "record/candidate_file.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REASON_PREFIX "unusable candidate file ("

static const char *const defect_names[KBV_CANDIDATE_DEFECT_COUNT] = {
    "ok", "empty", "binary", "too-large", "symlink", "not-regular", "unreadable", "missing",
};

/* For counts: the singular and the plural. */
static const char *const defect_words[KBV_CANDIDATE_DEFECT_COUNT][2] = {
    {"usable", "usable"},
    {"empty", "empty"},
    {"binary", "binary"},
    {"too large", "too large"},
    {"symbolic link", "symbolic links"},
    {"not a regular file", "not regular files"},
    {"unreadable", "unreadable"},
    {"gone", "gone"},
};

const char *kbv_candidate_defect_name(kbv_candidate_defect d)
{
    return d >= 0 && d < KBV_CANDIDATE_DEFECT_COUNT ? defect_names[d] : "?";
}

const char *kbv_candidate_defect_words(kbv_candidate_defect d, int count)
{
    return d >= 0 && d < KBV_CANDIDATE_DEFECT_COUNT ? defect_words[d][count != 1] : "?";
}

void kbv_candidate_defect_reason(const kbv_candidate_file *f, char *buf, size_t cap)
{
    snprintf(buf, cap, REASON_PREFIX "%s): %s", kbv_candidate_defect_name(f->defect), f->detail);
}

kbv_candidate_defect kbv_candidate_defect_of_reason(const char *reason)
{
    size_t plen = strlen(REASON_PREFIX);
    if (strncmp(reason, REASON_PREFIX, plen))
        return KBV_CANDIDATE_OK;
    const char *kind = reason + plen, *end = strchr(kind, ')');
    if (!end)
        return KBV_CANDIDATE_OK;
    for (int d = 1; d < KBV_CANDIDATE_DEFECT_COUNT; d++)
        if (strlen(defect_names[d]) == (size_t)(end - kind) &&
            !strncmp(kind, defect_names[d], (size_t)(end - kind)))
            return (kbv_candidate_defect)d;
    return KBV_CANDIDATE_OK;
}

void kbv_candidate_file_free(kbv_candidate_file *f)
{
    free(f->bytes);
    f->bytes = NULL;
    f->len = 0;
}

static const char *type_words(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a fifo";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    return "a special file";
}

/* A defect found without reading the bytes: the identity is the marker. */
static void unread(kbv_candidate_file *f, kbv_candidate_defect d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void unread(kbv_candidate_file *f, kbv_candidate_defect d, const char *fmt, ...)
{
    kbv_candidate_file_free(f);
    f->defect = d;
    snprintf(f->identity, sizeof f->identity, "unread:%s", defect_names[d]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
}

/* A failed lstat, open, fstat or read: kbv's own trouble is an error, the
 * rest is the file's. */
static kbv_status failed_call(int err, const char *call, const char *path, kbv_candidate_file *f)
{
    switch (err) {
    case ENOMEM:
        return kbv_fail(KBV_ERR_NOMEM, "%s %s: %s", call, path, strerror(err));
    case EMFILE:
    case ENFILE:
        return kbv_fail(KBV_ERR_IO, "%s %s: %s", call, path, strerror(err));
    case ENOENT:
    case ENOTDIR:
        unread(f, KBV_CANDIDATE_MISSING, "the file is gone (%s)", strerror(err));
        return KBV_OK;
    default:
        unread(f, KBV_CANDIDATE_UNREADABLE, "the file cannot be read (%s: %s)", call,
               strerror(err));
        return KBV_OK;
    }
}

static kbv_status set_identity(kbv_candidate_file *f)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (!EVP_Digest(f->bytes, f->len, md, &md_len, EVP_sha256(), NULL) || md_len != 32)
        return kbv_fail(KBV_ERR_NOMEM, "SHA-256 of a candidate");
    for (unsigned i = 0; i < md_len; i++)
        snprintf(f->identity + 2 * i, 3, "%02x", md[i]);
    return KBV_OK;
}

kbv_status kbv_candidate_file_read(const char *path, kbv_candidate_file *out)
{
    kbv_status st = KBV_OK;
    int fd = -1;
    struct stat sb;
    memset(out, 0, sizeof *out);
    /* lstat first: a link, fifo or device is judged without being opened */
    if (lstat(path, &sb) != 0)
        return failed_call(errno, "lstat", path, out);
    if (S_ISLNK(sb.st_mode)) {
        unread(out, KBV_CANDIDATE_SYMLINK, "a symbolic link, not followed: kbv reads a "
                                           "candidate only from a regular file");
        return KBV_OK;
    }
    if (!S_ISREG(sb.st_mode)) {
        unread(out, KBV_CANDIDATE_NOT_REGULAR, "%s, not a regular file (not opened)",
               type_words(sb.st_mode));
        return KBV_OK;
    }
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP) {   /* became a link after the lstat */
            unread(out, KBV_CANDIDATE_SYMLINK, "a symbolic link, not followed: kbv reads a "
                                               "candidate only from a regular file");
            return KBV_OK;
        }
        return failed_call(errno, "open", path, out);
    }
    if (fstat(fd, &sb) != 0) {
        st = failed_call(errno, "fstat", path, out);
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        unread(out, KBV_CANDIDATE_NOT_REGULAR, "%s, not a regular file", type_words(sb.st_mode));
        goto done;
    }
    if ((uintmax_t)sb.st_size > KBV_CANDIDATE_MAX_BYTES) {
        unread(out, KBV_CANDIDATE_TOO_LARGE, "the file is too large (%jd bytes, at most %u)",
               (intmax_t)sb.st_size, KBV_CANDIDATE_MAX_BYTES);
        goto done;
    }
    /* what fstat says it holds; a file changing meanwhile is read as it is then */
    size_t cap = (size_t)sb.st_size;
    out->bytes = malloc(cap + 1);
    if (!out->bytes)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "reading %s (%zu bytes)", path, cap);
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, out->bytes + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            st = failed_call(errno, "read", path, out);
            goto done;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    out->bytes[n] = '\0';
    out->len = n;
    KBV_TRY_GOTO(set_identity(out), st, done);
    const char *nul = memchr(out->bytes, '\0', n);
    if (n == 0) {
        out->defect = KBV_CANDIDATE_EMPTY;
        snprintf(out->detail, sizeof out->detail, "the file is empty");
    } else if (nul) {
        out->defect = KBV_CANDIDATE_BINARY;
        snprintf(out->detail, sizeof out->detail, "a NUL byte at offset %zu: a binary file, "
                 "not source text", (size_t)(nul - out->bytes));
    }
done:
    if (fd >= 0)
        close(fd);
    return st;
}
