/* Atomic file writes (see atomic_file.h). */
#include "gen/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Distinguishes the temporary files of concurrent writers in one process. */
static atomic_uint temp_counter;

kbv_status kbv_write_file_atomic(const char *path, const char *data, size_t len)
{
    /* hidden (".name.tmp.PID.N") so that a run directory scan never sees it */
    char tmp[4096];
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    int n = snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.%ld.%u", dir_len, path, path + dir_len,
                     (long)getpid(), atomic_fetch_add(&temp_counter, 1));
    if (n < 0 || (size_t)n >= sizeof tmp)
        return kbv_fail(KBV_ERR_INVALID, "path too long: %s", path);
    kbv_status st = KBV_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return kbv_fail(KBV_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "writing %s: %s", tmp, strerror(errno));
        done += (size_t)w;
    }
    if (fsync(fd) != 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "fsync %s: %s", tmp, strerror(errno));
    if (close(fd) != 0) {
        fd = -1;
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "closing %s: %s", tmp, strerror(errno));
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
    return KBV_OK;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return st;
}

kbv_status kbv_make_dirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "bad directory path '%s'", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return kbv_fail(KBV_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
        buf[i] = saved;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return kbv_fail(KBV_ERR_IO, "%s is not a directory", path);
    return KBV_OK;
}

bool kbv_file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}
