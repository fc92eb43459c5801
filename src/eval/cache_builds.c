#include "eval/cache_builds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/workdir.h"

static const char dir_prefix[] = ".tmp-";
static const char lock_suffix[] = ".lock";

/* How often a process waiting for another's build of the same entry looks. */
#define LOCK_POLL_MS 10

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether path still names the file open as fd (not removed, nor replaced
 * by another of the same name). */
static bool names_fd(const char *path, int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int kbv_build_lock(const char *lock_path, double wait_s, const volatile sig_atomic_t *cancel)
{
    const double deadline = now_s() + wait_s;
    for (;;) {
        int fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if ((errno != EWOULDBLOCK && errno != EINTR) || now_s() >= deadline ||
                (cancel && *cancel)) {
                close(fd);
                return -1;
            }
            nanosleep(&(struct timespec){.tv_nsec = LOCK_POLL_MS * 1000 * 1000}, NULL);
        }
        /* the file we waited on was let go and removed (by its build, or by
         * a sweep): a lock on it is nobody's, so take the one named now */
        if (names_fd(lock_path, fd))
            return fd;
        close(fd);
    }
}

void kbv_build_unlock(const char *lock_path, int fd)
{
    if (fd < 0)
        return;
    /* removed while held: a waiter that already opened it sees that it is
     * gone (kbv_build_lock) and locks a new file, then finds the entry */
    unlink(lock_path);
    close(fd);
}

/* Removes path (a directory, or the lock file when is_lock) if nobody holds it. */
static bool sweep_one(const char *path, bool is_lock)
{
    int fd = is_lock ? open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
                     : open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    /* held: a live build; free: its build is gone. Still ours to remove only
     * if the name was not published, removed or reused since we opened it;
     * removed while we hold it, so no build can take it meanwhile. */
    bool removed = flock(fd, LOCK_EX | LOCK_NB) == 0 && names_fd(path, fd) &&
                   (is_lock ? unlink(path) == 0 : kbv_sandbox_remove_dir(path) == KBV_OK);
    close(fd);
    return removed;
}

void kbv_build_sweep(const char *shard, int *removed)
{
    if (removed)
        *removed = 0;
    DIR *dir = opendir(shard);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const size_t len = strlen(e->d_name);
        const bool is_dir = strncmp(e->d_name, dir_prefix, sizeof dir_prefix - 1) == 0;
        const bool is_lock = len > sizeof lock_suffix - 1 &&
                             strcmp(e->d_name + len - (sizeof lock_suffix - 1), lock_suffix) == 0;
        char path[PATH_MAX];
        if ((!is_dir && !is_lock) ||
            snprintf(path, sizeof path, "%s/%s", shard, e->d_name) >= (int)sizeof path)
            continue;
        if (sweep_one(path, is_lock) && removed)
            (*removed)++;
    }
    closedir(dir);
}

void kbv_build_sweep_all(const char *root, int *removed)
{
    if (removed)
        *removed = 0;
    DIR *dir = opendir(root);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char shard[PATH_MAX];
        if (e->d_name[0] == '.' ||
            snprintf(shard, sizeof shard, "%s/%s", root, e->d_name) >= (int)sizeof shard)
            continue;
        int n = 0;
        kbv_build_sweep(shard, &n);   /* a file, not a shard: opendir fails, nothing */
        if (removed)
            *removed += n;
    }
    closedir(dir);
}

kbv_status kbv_build_dir_make(const char *shard, const char *key, kbv_build_dir *d)
{
    d->path[0] = '\0';
    d->fd = -1;
    kbv_build_sweep(shard, NULL);
    for (;;) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s%.16s-XXXXXX", shard, dir_prefix, key) >=
            (int)sizeof path)
            return kbv_fail(KBV_ERR_INVALID, "cache path too long: %s", shard);
        if (!mkdtemp(path))
            return kbv_fail(KBV_ERR_IO, "mkdtemp in %s: %s", shard, strerror(errno));
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == ENOENT)   /* swept before we opened it */
                continue;
            kbv_sandbox_remove_dir(path);
            return kbv_fail(KBV_ERR_IO, "open %s: %s", path, strerror(err));
        }
        while (flock(fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                int err = errno;
                close(fd);
                kbv_sandbox_remove_dir(path);
                return kbv_fail(KBV_ERR_IO, "flock %s: %s", path, strerror(err));
            }
        }
        /* a sweep that took it for dead between mkdtemp and our lock removed it */
        if (!names_fd(path, fd)) {
            close(fd);
            continue;
        }
        snprintf(d->path, sizeof d->path, "%s", path);
        d->fd = fd;
        return KBV_OK;
    }
}

kbv_status kbv_build_dir_publish(kbv_build_dir *d, const char *entry)
{
    if (rename(d->path, entry) == 0) {
        d->path[0] = '\0';
        return KBV_OK;
    }
    if (errno == EEXIST || errno == ENOTEMPTY)
        return KBV_OK;
    return kbv_fail(KBV_ERR_IO, "rename %s -> %s: %s", d->path, entry, strerror(errno));
}

kbv_status kbv_build_dir_end(kbv_build_dir *d)
{
    kbv_status st = KBV_OK;
    if (d->path[0]) {   /* removed while still locked: no sweep takes a half-removed one */
        st = kbv_sandbox_remove_dir(d->path);
        if (st != KBV_OK)
            kbv_relay_at(__FILE__, __LINE__, st);
    }
    d->path[0] = '\0';
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
    return st;
}
