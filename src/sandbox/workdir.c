#include "sandbox/workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REMOVE_MAX_DEPTH 64

kbv_status kbv_sandbox_private_dir(char *buf, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    int n = snprintf(buf, cap, "%s/kbv-run-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "temporary directory path too long: %s", tmp);
    if (!mkdtemp(buf))
        return kbv_fail(KBV_ERR_IO, "mkdtemp %s: %s", buf, strerror(errno));
    return KBV_OK;
}

/* Removes `name` under the directory `at`; directories recursively. Descends through
 * descriptors (openat with O_NOFOLLOW), so a symbolic link planted in the
 * tree is removed, never followed. */
static int remove_at(int at, const char *name, int depth)
{
    if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return errno;
    if (depth >= REMOVE_MAX_DEPTH)
        return ELOOP;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        /* the candidate may have taken its own permissions away */
        if (fchmodat(at, name, 0700, 0) == 0)
            fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return errno;
    (void)fchmod(fd, 0700);  /* entries of a read-only directory cannot be unlinked */
    DIR *d = fdopendir(fd);
    if (!d) {
        int err = errno;
        close(fd);
        return err;
    }
    int err = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int sub = remove_at(dirfd(d), e->d_name, depth + 1);
        if (sub && !err)
            err = sub;
    }
    closedir(d);
    if (unlinkat(at, name, AT_REMOVEDIR) != 0 && errno != ENOENT && !err)
        err = errno;
    return err;
}

kbv_status kbv_sandbox_remove_dir(const char *path)
{
    int err = remove_at(AT_FDCWD, path, 0);
    if (err)
        return kbv_fail(KBV_ERR_IO, "cannot remove %s: %s", path, strerror(err));
    return KBV_OK;
}
