/* The candidate process's seccomp allowlist (see filter.h). The list was
 * taken from what kbv-runner, the CUDA driver and CUPTI were seen to call
 * on an H200 (bench/probes/syscall_census.c) and on the CPU backend, plus
 * what the C library may call on their behalf. */
#include "sandbox/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Calls on descriptors, memory, threads, time and signals: nothing here
 * names a path, creates a process or reaches outside. */
static const int always[] = {
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
    SCMP_SYS(pwrite64), SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(dup), SCMP_SYS(dup2),
    SCMP_SYS(dup3), SCMP_SYS(fcntl), SCMP_SYS(fstat), SCMP_SYS(getdents64), SCMP_SYS(fadvise64),
    SCMP_SYS(mmap), SCMP_SYS(mprotect), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
    SCMP_SYS(brk), SCMP_SYS(msync), SCMP_SYS(mincore), SCMP_SYS(mlock), SCMP_SYS(munlock),
    SCMP_SYS(mlock2), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
    SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
    SCMP_SYS(eventfd2), SCMP_SYS(pipe2), SCMP_SYS(futex), SCMP_SYS(set_robust_list),
    SCMP_SYS(rseq), SCMP_SYS(set_tid_address), SCMP_SYS(arch_prctl), SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_getparam),
    SCMP_SYS(sched_getscheduler), SCMP_SYS(sched_get_priority_max),
    SCMP_SYS(sched_get_priority_min), SCMP_SYS(getpriority), SCMP_SYS(membarrier),
    SCMP_SYS(getcpu), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid),
    SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getresuid),
    SCMP_SYS(getresgid), SCMP_SYS(getgroups), SCMP_SYS(getpgrp), SCMP_SYS(getpgid),
    SCMP_SYS(getsid), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
    SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(time),
    SCMP_SYS(times), SCMP_SYS(getrusage), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
    SCMP_SYS(sigaltstack), SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigsuspend),
    SCMP_SYS(rt_sigpending), SCMP_SYS(restart_syscall), SCMP_SYS(exit), SCMP_SYS(exit_group),
    SCMP_SYS(sendto), SCMP_SYS(recvfrom), SCMP_SYS(sendmsg), SCMP_SYS(recvmsg),
    SCMP_SYS(getrandom), SCMP_SYS(uname), SCMP_SYS(sysinfo), SCMP_SYS(getcwd),
    SCMP_SYS(getrlimit), SCMP_SYS(get_mempolicy), SCMP_SYS(set_mempolicy), SCMP_SYS(mbind),
};

/* While the dynamic loader maps the candidate and its libraries. */
static const int loading[] = {
    SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(access),
    SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
    SCMP_SYS(seccomp),   /* the run stage's filter is installed after the load */
};

/* What the run stage closes: every call that names a path. */
static const int path_calls[] = {
    SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat), SCMP_SYS(stat),
    SCMP_SYS(lstat), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
    SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(seccomp),
};

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif

/* prctl options the runner, the C library and the CUDA driver use. */
static const int prctl_options[] = {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_SET_VMA,
                                    PR_GET_NO_NEW_PRIVS, PR_SET_NO_NEW_PRIVS, PR_GET_SECCOMP,
                                    PR_CAPBSET_READ, PR_GET_TIMERSLACK};

#define RULE(ctx, action, nr, ...)                                                        \
    do {                                                                                  \
        int rc_ = seccomp_rule_add((ctx), (action), (nr), __VA_ARGS__);                   \
        if (rc_ < 0)                                                                      \
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp rule for %s: %s",      \
                          kbv_syscall_name((nr), name, sizeof name), strerror(-rc_));     \
    } while (0)

static kbv_status load_stage(scmp_filter_ctx ctx, kbv_filter_stage stage)
{
    kbv_status st = KBV_OK;
    char name[64];
    pid_t self = getpid();
    if (stage == KBV_FILTER_LOAD) {
        for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
            RULE(ctx, SCMP_ACT_ALLOW, always[i], 0);
        for (size_t i = 0; i < sizeof loading / sizeof loading[0]; i++)
            RULE(ctx, SCMP_ACT_ALLOW, loading[i], 0);
        /* opens for reading only: the loader's, and the driver's */
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
             SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | 020000000,
                     O_RDONLY));
        /* threads, never processes */
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
        RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        /* signals to itself alone; SIGSYS stays the runner's */
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, 0));
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1, SCMP_A0(SCMP_CMP_NE, SIGSYS));
        /* limits may be read, not raised */
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
        /* no terminal input injection (the runner holds no terminal anyway) */
        RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1_32(SCMP_CMP_NE, TIOCSTI));
        for (size_t i = 0; i < sizeof prctl_options / sizeof prctl_options[0]; i++)
            RULE(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
                 SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)prctl_options[i]));
    } else {
        for (size_t i = 0; i < sizeof path_calls / sizeof path_calls[0]; i++)
            RULE(ctx, SCMP_ACT_TRAP, path_calls[i], 0);
        /* the C library's fstat is newfstatat(fd, "", AT_EMPTY_PATH) */
        RULE(ctx, SCMP_ACT_TRAP, SCMP_SYS(newfstatat), 1,
             SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0));
        RULE(ctx, SCMP_ACT_TRAP, SCMP_SYS(statx), 1,
             SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0));
    }
done:
    return st;
}

kbv_status kbv_filter_runner_install(kbv_filter_stage stage)
{
    kbv_status st = KBV_OK;
    scmp_filter_ctx ctx = seccomp_init(stage == KBV_FILTER_LOAD ? SCMP_ACT_TRAP : SCMP_ACT_ALLOW);
    if (!ctx)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "seccomp_init failed");
    /* every thread, the CUDA driver's included; other architectures' calls end the process */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp attributes (TSYNC) unsupported");
    KBV_TRY_GOTO(load_stage(ctx, stage), st, done);
    int rc = seccomp_load(ctx);
    if (rc < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp_load: %s", strerror(-rc));
done:
    seccomp_release(ctx);
    return st;
}

const char *kbv_syscall_name(int nr, char *buf, size_t cap)
{
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    if (name)
        snprintf(buf, cap, "%s", name);
    else
        snprintf(buf, cap, "syscall %d", nr);
    free(name);
    return buf;
}
