#include "sandbox/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JAIL_PATH_CAP (2 * PATH_MAX)

static const char *const step_names[] = {
    [KBV_JAIL_OK] = "nothing",
    [KBV_JAIL_ID_MAP] = "writing the user namespace's ID maps",
    [KBV_JAIL_PRIVATE] = "making the mounts private",
    [KBV_JAIL_ROOT] = "mounting the new root",
    [KBV_JAIL_ENTRY] = "binding a policy path",
    [KBV_JAIL_PROC] = "mounting /proc",
    [KBV_JAIL_SYS] = "binding /sys",
    [KBV_JAIL_DEV] = "making /dev",
    [KBV_JAIL_TMP] = "mounting a private tmpfs",
    [KBV_JAIL_PIVOT] = "pivoting into the new root",
    [KBV_JAIL_READONLY] = "making the new root read-only",
};
_Static_assert(sizeof step_names / sizeof step_names[0] == KBV_JAIL_STEP_COUNT,
               "one name per jail step");

const char *kbv_jail_step_name(kbv_jail_step s)
{
    return (unsigned)s < KBV_JAIL_STEP_COUNT ? step_names[s] : "an unknown step";
}

static bool fail(kbv_jail_failure *f, kbv_jail_step step, int index)
{
    f->step = step;
    f->err = errno;
    f->index = index;
    return false;
}

/* ---- async-signal-safe string helpers -------------------------------- */

static bool concat(char *dst, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb + 1 > cap) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb + 1);
    return true;
}

static size_t put_uint(char *buf, unsigned long v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

static bool write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int err = errno;
    close(fd);
    errno = err;
    return n == (ssize_t)len;
}

/* "0 <outer> 1": the outer ID is root inside. */
static bool write_map(const char *path, unsigned long outer)
{
    char line[48] = "0 ";
    size_t n = 2 + put_uint(line + 2, outer);
    memcpy(line + n, " 1\n", 4);
    return write_file(path, line);
}

/* mkdir -p of dst's directories; with last, of dst itself too. */
static bool make_dirs(char *dst, bool last)
{
    size_t len = strlen(dst);
    for (size_t i = 1; i <= len; i++) {
        if (dst[i] != '/' && dst[i] != '\0')
            continue;
        if (dst[i] == '\0' && !last)
            break;
        char saved = dst[i];
        dst[i] = '\0';
        int rc = mkdir(dst, 0755);
        dst[i] = saved;
        if (rc != 0 && errno != EEXIST)
            return false;
    }
    return true;
}

/* ---- mounts ------------------------------------------------------------ */

/* The flags a remount must keep: those the kernel locks on a mount
 * inherited from a more privileged namespace. */
static unsigned long locked_flags(const char *path)
{
    struct statvfs sf;
    unsigned long keep = 0;
    if (statvfs(path, &sf) != 0)
        return 0;
    if (sf.f_flag & ST_NOSUID)
        keep |= MS_NOSUID;
    if (sf.f_flag & ST_NODEV)
        keep |= MS_NODEV;
    if (sf.f_flag & ST_NOEXEC)
        keep |= MS_NOEXEC;
    if (sf.f_flag & ST_RDONLY)
        keep |= MS_RDONLY;
    return keep;
}

/* Read-only (and nosuid) for a bind mount and, with recursive, everything
 * mounted below it. */
static bool make_readonly(const char *dst, bool recursive, bool keep_dev)
{
#ifdef SYS_mount_setattr
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                                          (keep_dev ? 0 : MOUNT_ATTR_NODEV)};
    if (syscall(SYS_mount_setattr, AT_FDCWD, dst, recursive ? AT_RECURSIVE : 0, &attr,
                sizeof attr) == 0)
        return true;
    if (errno != ENOSYS && errno != EINVAL)
        return false;
#endif
    (void)recursive;   /* without mount_setattr only the top mount changes */
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | locked_flags(dst);
    if (!keep_dev)
        flags |= MS_NODEV;
    return mount(NULL, dst, NULL, flags, NULL) == 0;
}

static bool bind(const char *src, const char *dst, bool dir, unsigned access)
{
    if (mount(src, dst, NULL, MS_BIND | (dir ? MS_REC : 0), NULL) != 0)
        return false;
    /* a device is written through, never its node: no remount needed */
    if (access & (KBV_ACCESS_WRITE | KBV_ACCESS_DEVICE))
        return true;
    return make_readonly(dst, dir, false);
}

static bool place_entry(const kbv_policy_entry *e, const char *root)
{
    char dst[JAIL_PATH_CAP];
    if (!concat(dst, sizeof dst, root, e->path))
        return false;
    struct stat sb;
    bool exists = lstat(dst, &sb) == 0;
    switch (e->kind) {
    case KBV_ENTRY_LINK:
        if (exists)
            return true;   /* an ancestor's bind already brought it */
        return make_dirs(dst, false) && symlink(e->target, dst) == 0;
    case KBV_ENTRY_DIR:
        if (!exists && !make_dirs(dst, true))
            return false;
        return bind(e->path, dst, true, e->access);
    case KBV_ENTRY_FILE:
        if (!exists) {
            if (!make_dirs(dst, false))
                return false;
            int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd < 0)
                return false;
            close(fd);
        }
        return bind(e->path, dst, false, e->access);
    case KBV_ENTRY_HIDE:
        if (!exists)
            return true;   /* not exposed: nothing to hide */
        /* writable until every entry is placed: one beneath it needs its
         * mount point made here (kbv_jail_enter seals it afterwards) */
        return mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     "size=64k,mode=0755") == 0;
    }
    errno = EINVAL;
    return false;
}

static bool make_dev(const char *root, const kbv_policy *p)
{
    char dst[JAIL_PATH_CAP];
    if (!concat(dst, sizeof dst, root, "/dev") || mkdir(dst, 0755) != 0 ||
        mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") != 0)
        return false;
    static const char *const links[][2] = {{"/dev/fd", "/proc/self/fd"},
                                           {"/dev/stdin", "/proc/self/fd/0"},
                                           {"/dev/stdout", "/proc/self/fd/1"},
                                           {"/dev/stderr", "/proc/self/fd/2"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (!concat(dst, sizeof dst, root, links[i][0]) || symlink(links[i][1], dst) != 0)
            return false;
    if (p->dev_shm) {
        if (!concat(dst, sizeof dst, root, "/dev/shm") || mkdir(dst, 01777) != 0 ||
            mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=64m,mode=1777") != 0)
            return false;
    }
    return true;
}

static bool make_tmp(const char *root, size_t bytes)
{
    char dst[JAIL_PATH_CAP], opts[64] = "mode=1777,size=";
    size_t n = strlen(opts);
    n += put_uint(opts + n, (unsigned long)bytes);
    opts[n] = '\0';
    return concat(dst, sizeof dst, root, "/tmp") && mkdir(dst, 01777) == 0 &&
           mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, opts) == 0;
}

bool kbv_jail_enter(const kbv_policy *p, const char *root, bool user_ns, uid_t outer_uid,
                    gid_t outer_gid, kbv_jail_failure *f)
{
    char dst[JAIL_PATH_CAP];
    f->step = KBV_JAIL_OK;
    f->err = 0;
    f->index = -1;
    if (user_ns) {
        /* setgroups must be denied before an unprivileged gid_map */
        if ((!write_file("/proc/self/setgroups", "deny") && errno != ENOENT) ||
            !write_map("/proc/self/gid_map", outer_gid) ||
            !write_map("/proc/self/uid_map", outer_uid))
            return fail(f, KBV_JAIL_ID_MAP, -1);
    }
    /* nothing done here may propagate back to the machine's mounts */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(f, KBV_JAIL_PRIVATE, -1);
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755") != 0)
        return fail(f, KBV_JAIL_ROOT, -1);
    if (!make_dev(root, p))
        return fail(f, KBV_JAIL_DEV, -1);
    if (p->tmp_bytes && !make_tmp(root, p->tmp_bytes))
        return fail(f, KBV_JAIL_TMP, -1);
    if (p->proc) {
        /* read-only: root inside may map to root outside, and /proc/sys
         * answers writes by file owner. The superblock stays writable so
         * that the process's own threads' entries can be, through a bind
         * mount of their own (this process is the namespace's first: 1). */
        if (!concat(dst, sizeof dst, root, "/proc") || mkdir(dst, 0555) != 0 ||
            mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            return fail(f, KBV_JAIL_PROC, -1);
        char task[JAIL_PATH_CAP];
        if (p->proc_task_writable &&
            (!concat(task, sizeof task, dst, "/1/task") ||
             mount(task, task, NULL, MS_BIND, NULL) != 0))
            return fail(f, KBV_JAIL_PROC, -1);
        if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV |
                  MS_NOEXEC, NULL) != 0)
            return fail(f, KBV_JAIL_PROC, -1);
    }
    if (p->sys) {
        if (!concat(dst, sizeof dst, root, "/sys") || mkdir(dst, 0555) != 0 ||
            !bind("/sys", dst, true, KBV_ACCESS_READ))
            return fail(f, KBV_JAIL_SYS, -1);
    }
    for (int i = 0; i < p->n; i++)
        if (!place_entry(&p->v[i], root))
            return fail(f, KBV_JAIL_ENTRY, i);
    for (int i = 0; i < p->n; i++) {
        if (p->v[i].kind != KBV_ENTRY_HIDE)
            continue;
        if (!concat(dst, sizeof dst, root, p->v[i].path))
            return fail(f, KBV_JAIL_ENTRY, i);
        /* EINVAL, ENOENT: nothing was mounted there (it was not exposed) */
        if (mount(NULL, dst, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  NULL) != 0 && errno != EINVAL && errno != ENOENT)
            return fail(f, KBV_JAIL_ENTRY, i);
    }
    /* pivot_root(".", "."): the old root ends up stacked under the new one
     * and is detached at once (pivot_root(2), NOTES) */
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        return fail(f, KBV_JAIL_PIVOT, -1);
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        return fail(f, KBV_JAIL_READONLY, -1);
    return true;
}
