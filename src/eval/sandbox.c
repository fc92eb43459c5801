#include "eval/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

int kbv_sandbox_pre_exec(pid_t parent, const char *dir)
{
    struct rlimit core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &core) != 0)
        return errno;
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) != 0)
        return errno;
    /* lower the hard limit too, so the candidate cannot raise it back */
    if (nofile.rlim_max == RLIM_INFINITY || nofile.rlim_max > KBV_SANDBOX_NOFILE)
        nofile.rlim_max = KBV_SANDBOX_NOFILE;
    if (nofile.rlim_cur == RLIM_INFINITY || nofile.rlim_cur > nofile.rlim_max)
        nofile.rlim_cur = nofile.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &nofile) != 0)
        return errno;
    /* fires when the forking thread exits: children must be started from a
     * thread that outlives them */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return errno;
    if (getppid() != parent)  /* the parent died before prctl took effect */
        return ESRCH;
    if (chdir(dir) != 0)
        return errno;
    return 0;
}

kbv_status kbv_sandbox_seccomp(void)
{
    static const int denied[] = {
        SCMP_SYS(fork),    SCMP_SYS(vfork),          SCMP_SYS(execve),
        SCMP_SYS(execveat), SCMP_SYS(ptrace),        SCMP_SYS(process_vm_readv),
        SCMP_SYS(process_vm_writev), SCMP_SYS(socket), SCMP_SYS(socketpair),
        SCMP_SYS(connect), SCMP_SYS(bind),           SCMP_SYS(listen),
        SCMP_SYS(accept),  SCMP_SYS(accept4),
    };
    kbv_status st = KBV_OK;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "seccomp_init failed");
    int rc = 0;
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
        if (rc < 0)
            KBV_FAIL_GOTO(st, out, KBV_ERR_UNSUPPORTED, "seccomp rule for syscall %d: %s",
                          denied[i], strerror(-rc));
    }
    /* clone creating a process (not a thread) */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    if (rc < 0)
        KBV_FAIL_GOTO(st, out, KBV_ERR_UNSUPPORTED, "seccomp rule for clone: %s", strerror(-rc));
    /* clone3 passes its flags in memory the filter cannot read */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc < 0)
        KBV_FAIL_GOTO(st, out, KBV_ERR_UNSUPPORTED, "seccomp rule for clone3: %s", strerror(-rc));
    rc = seccomp_load(ctx);
    if (rc < 0)
        KBV_FAIL_GOTO(st, out, KBV_ERR_UNSUPPORTED, "seccomp_load: %s", strerror(-rc));
out:
    seccomp_release(ctx);
    return st;
}
