#include "sandbox/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sandbox/landlock.h"
#include "sandbox/privileges.h"
#include "sandbox/spawn_internal.h"

/* Descriptors are moved above this before being put in place. */
#define FD_STAGING 100

typedef enum child_step {
    STEP_NONE = 0,
    STEP_FDS,
    STEP_GROUP,
    STEP_JAIL,
    STEP_LIMITS,
    STEP_DEATHSIG,
    STEP_CWD,
    STEP_LANDLOCK,
    STEP_PRIVILEGES,
    STEP_FILTER,
    STEP_EXEC,
    STEP_COUNT
} child_step;

static const char *const step_names[] = {
    [STEP_NONE] = "nothing",
    [STEP_FDS] = "arranging its descriptors",
    [STEP_GROUP] = "making its process group",
    [STEP_JAIL] = "building its root",
    [STEP_LIMITS] = "setting its resource limits",
    [STEP_DEATHSIG] = "tying its life to kbv's",
    [STEP_CWD] = "entering its working directory",
    [STEP_LANDLOCK] = "applying Landlock",
    [STEP_PRIVILEGES] = "dropping privileges",
    [STEP_FILTER] = "installing its seccomp filter",
    [STEP_EXEC] = "executing the program",
};
_Static_assert(sizeof step_names / sizeof step_names[0] == STEP_COUNT, "one name per step");

typedef struct child_report {
    int step;                 /* child_step */
    int err;
    int jail_step;            /* kbv_jail_step, for STEP_JAIL */
    int index;                /* the policy entry, where one failed */
} child_report;

static void report_and_exit(int fd, child_report r) __attribute__((noreturn));
static void report_and_exit(int fd, child_report r)
{
    while (write(fd, &r, sizeof r) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* Puts fds[i] at descriptor i, every other descriptor closed at exec. */
static int arrange_fds(const kbv_spawn *s, int report_fd)
{
    int staged[16];
    if (s->n_fds > (int)(sizeof staged / sizeof staged[0]))
        return EINVAL;
    for (int i = 0; i < s->n_fds; i++) {
        staged[i] = -1;
        if (s->fds[i] >= 0 && (staged[i] = fcntl(s->fds[i], F_DUPFD_CLOEXEC, FD_STAGING)) < 0)
            return errno;
    }
    for (int i = 0; i < s->n_fds; i++) {
        int src = staged[i];
        if (src < 0 && (src = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
            return errno;
        if (dup2(src, i) < 0)
            return errno;
    }
    /* everything above closes at exec; the report pipe is needed until then */
    if (syscall(SYS_close_range, (unsigned)s->n_fds, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0) {
        for (int fd = s->n_fds; fd < 4096; fd++)
            if (fd != report_fd)
                (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return 0;
}

static int set_limit(int resource, rlim_t value)
{
    struct rlimit rl = {value, value};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < value)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;   /* never above what we have */
    return setrlimit(resource, &rl) == 0 ? 0 : errno;
}

static void child_main(const kbv_spawn *s, const kbv_spawn_plan *plan, int report_fd)
    __attribute__((noreturn));
static void child_main(const kbv_spawn *s, const kbv_spawn_plan *plan, int report_fd)
{
    child_report r = {.index = -1};
    int err;
    if ((err = arrange_fds(s, report_fd)) != 0)
        report_and_exit(report_fd, (child_report){STEP_FDS, err, 0, -1});
    if (s->own_group && setpgid(0, 0) != 0)
        report_and_exit(report_fd, (child_report){STEP_GROUP, errno, 0, -1});
    if (plan->namespaces) {
        kbv_jail_failure f;
        if (!kbv_jail_enter(s->policy, plan->root, plan->user_ns, plan->uid, plan->gid, &f))
            report_and_exit(report_fd, (child_report){STEP_JAIL, f.err, f.step, f.index});
    }
    struct rlimit core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &core) != 0 ||
        (s->limit_as && (errno = set_limit(RLIMIT_AS, s->limit_as)) != 0) ||
        (s->limit_fsize && (errno = set_limit(RLIMIT_FSIZE, s->limit_fsize)) != 0) ||
        (s->limit_nofile && (errno = set_limit(RLIMIT_NOFILE, s->limit_nofile)) != 0))
        report_and_exit(report_fd, (child_report){STEP_LIMITS, errno, 0, -1});
    /* best effort: a child at the normal priority still works */
    if (s->nice > 0 && setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + s->nice) != 0)
        errno = 0;
    if (s->die_with_parent) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
            report_and_exit(report_fd, (child_report){STEP_DEATHSIG, errno, 0, -1});
        /* outside a PID namespace, a parent that died before prctl shows */
        if (!plan->namespaces && getppid() != plan->parent)
            report_and_exit(report_fd, (child_report){STEP_DEATHSIG, ESRCH, 0, -1});
    }
    if (s->cwd && chdir(s->cwd) != 0)
        report_and_exit(report_fd, (child_report){STEP_CWD, errno, 0, -1});
    if (plan->landlock_abi > 0 &&
        (err = kbv_landlock_apply(s->policy, plan->landlock_abi, plan->namespaces, &r.index)) != 0)
        report_and_exit(report_fd, (child_report){STEP_LANDLOCK, err, 0, r.index});
    if ((err = kbv_privileges_drop()) != 0)
        report_and_exit(report_fd, (child_report){STEP_PRIVILEGES, err, 0, -1});
    if (s->filter && (err = kbv_filter_install_bpf(s->filter)) != 0)
        report_and_exit(report_fd, (child_report){STEP_FILTER, err, 0, -1});
    execve(s->path, s->argv, s->envp);
    report_and_exit(report_fd, (child_report){STEP_EXEC, errno, 0, -1});
}

static void describe_failure(const kbv_spawn *s, const child_report *r, char *buf, size_t cap)
{
    const char *step = (unsigned)r->step < STEP_COUNT ? step_names[r->step] : "an unknown step";
    /* a spawn finished later (kbv_sandbox_spawn_end) no longer has its policy */
    bool named = s && s->policy && r->index >= 0 && r->index < s->policy->n;
    if (r->step == STEP_JAIL) {
        const char *what = kbv_jail_step_name((kbv_jail_step)r->jail_step);
        if (named)
            snprintf(buf, cap, "%s (%s %s): %s", step, what, s->policy->v[r->index].path,
                     strerror(r->err));
        else
            snprintf(buf, cap, "%s (%s): %s", step, what, strerror(r->err));
    } else if (named) {
        snprintf(buf, cap, "%s (%s): %s", step, s->policy->v[r->index].path, strerror(r->err));
    } else {
        snprintf(buf, cap, "%s: %s", step, strerror(r->err));
    }
}

/* Clones the child, which confines itself and execs; returns at once. */
static kbv_status spawn_begin(const kbv_spawn *s, kbv_spawn_plan *plan, kbv_spawn_pending *p)
{
    kbv_status st = KBV_OK;
    int rp[2] = {-1, -1};
    pid_t pid = -1;
    p->pid = -1;
    p->report_fd = -1;
    p->root[0] = '\0';
    snprintf(p->path, sizeof p->path, "%s", s->path);
    plan->root[0] = '\0';
    plan->parent = getpid();
    plan->uid = getuid();
    plan->gid = getgid();
    if (plan->namespaces) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || tmp[0] != '/')
            tmp = "/tmp";
        if (snprintf(plan->root, sizeof plan->root, "%s/kbv-jail-XXXXXX", tmp) >=
            (int)sizeof plan->root)
            return kbv_fail(KBV_ERR_INVALID, "TMPDIR too long: %s", tmp);
        if (!mkdtemp(plan->root)) {
            int err = errno;
            plan->root[0] = '\0';
            return kbv_fail(KBV_ERR_IO, "cannot make a directory in %s: %s", tmp, strerror(err));
        }
    }
    if (pipe2(rp, O_CLOEXEC) != 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "pipe: %s", strerror(errno));
    if (plan->namespaces) {
        unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | SIGCHLD;
        if (plan->user_ns)
            flags |= CLONE_NEWUSER;
        /* fork semantics (no new stack): the child runs on below as after fork() */
        pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, 0UL);
    } else {
        pid = fork();
    }
    if (pid < 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_CHILD, "cannot start %s: %s%s", s->path, strerror(errno),
                      plan->namespaces ? " (creating namespaces)" : "");
    if (pid == 0) {
        close(rp[0]);
        child_main(s, plan, rp[1]);
    }
    close(rp[1]);
    p->pid = pid;
    p->report_fd = rp[0];
    snprintf(p->root, sizeof p->root, "%s", plan->root);
    return KBV_OK;
fail:
    for (int i = 0; i < 2; i++)
        if (rp[i] >= 0)
            close(rp[i]);
    if (plan->root[0])
        rmdir(plan->root);
    return st;
}

/* Waits until the child exec'd (its end of the report pipe closes) or
 * reported the step that failed (then it is reaped). s: for naming the path
 * of a failed step, or NULL. */
static kbv_status spawn_end(const kbv_spawn *s, kbv_spawn_pending *p, pid_t *out_pid)
{
    kbv_status st = KBV_OK;
    *out_pid = -1;
    child_report r;
    ssize_t n;
    while ((n = read(p->report_fd, &r, sizeof r)) < 0 && errno == EINTR)
        ;
    if (n > 0) {
        /* it never ran the program: reap it here */
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        char what[PATH_MAX + 256];
        if (n == (ssize_t)sizeof r)
            describe_failure(s, &r, what, sizeof what);
        else
            snprintf(what, sizeof what, "a partial report from the child");
        st = kbv_fail(KBV_ERR_CHILD, "sandbox: cannot start %s: %s", p->path, what);
    } else {
        *out_pid = p->pid;
    }
    close(p->report_fd);
    p->report_fd = -1;
    p->pid = -1;
    /* the child has exec'd or died: its mounts never touched this directory */
    if (p->root[0])
        rmdir(p->root);
    p->root[0] = '\0';
    return st;
}

kbv_status kbv_spawn_with_plan(const kbv_spawn *s, kbv_spawn_plan *plan, pid_t *out_pid)
{
    kbv_spawn_pending p;
    *out_pid = -1;
    KBV_TRY(spawn_begin(s, plan, &p));
    KBV_TRY(spawn_end(s, &p, out_pid));
    return KBV_OK;
}

/* The confinement this machine allows, as kbv_sandbox_spawn applies it. */
static kbv_status plan_for_mode(const kbv_spawn *s, kbv_spawn *bare, kbv_spawn_plan *plan,
                                const kbv_spawn **use)
{
    const kbv_sandbox_mode *m = kbv_sandbox_mode_get();
    if (!m->off && !m->usable)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s", m->why_not);
    memset(plan, 0, sizeof *plan);
    plan->namespaces = !m->off && m->namespaces;
    plan->user_ns = !m->off && m->user_ns;
    plan->landlock_abi = m->off ? 0 : m->landlock_abi;
    *use = s;
    if (m->off) {
        /* no confinement at all, and no seccomp program either */
        *bare = *s;
        bare->filter = NULL;
        *use = bare;
    }
    return KBV_OK;
}

kbv_status kbv_sandbox_spawn_begin(const kbv_spawn *s, kbv_spawn_pending *p)
{
    kbv_spawn bare;
    kbv_spawn_plan plan;
    const kbv_spawn *use = NULL;   /* set on KBV_OK */
    KBV_TRY(plan_for_mode(s, &bare, &plan, &use));
    KBV_TRY(spawn_begin(use, &plan, p));
    return KBV_OK;
}

kbv_status kbv_sandbox_spawn_end(kbv_spawn_pending *p, pid_t *pid)
{
    KBV_TRY(spawn_end(NULL, p, pid));
    return KBV_OK;
}

kbv_status kbv_sandbox_spawn(const kbv_spawn *s, pid_t *pid)
{
    kbv_spawn bare;
    kbv_spawn_plan plan;
    const kbv_spawn *use = NULL;   /* set on KBV_OK */
    KBV_TRY(plan_for_mode(s, &bare, &plan, &use));
    KBV_TRY(kbv_spawn_with_plan(use, &plan, pid));
    return KBV_OK;
}
