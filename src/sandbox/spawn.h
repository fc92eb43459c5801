/* Starting a confined program: the one way kbv starts untrusted work (the
 * candidate's runner, the compilers that read a candidate's source).
 *
 * kbv_sandbox_spawn clones a child into new namespaces (mount, PID, network,
 * IPC, and user where the kernel lets an unprivileged process have one),
 * builds the jail from the policy, applies Landlock, resource limits and an
 * optional seccomp program, gives up every privilege and execs the program,
 * with exactly the descriptors asked for. Where namespaces are not available
 * Landlock alone confines the file system. A step that fails is reported
 * with what it was, and the child never runs the program. */
#ifndef KBV_SANDBOX_SPAWN_H
#define KBV_SANDBOX_SPAWN_H

#include <limits.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/status.h"
#include "sandbox/filter.h"
#include "sandbox/policy.h"

/* What this machine lets kbv do, found once per process (kbv_sandbox_mode). */
typedef struct kbv_sandbox_mode {
    bool off;                 /* KBV_SANDBOX=off: nothing confined (debugging only) */
    bool usable;              /* some file-system confinement works here */
    bool namespaces;          /* the jail */
    bool user_ns;             /* ... in a user namespace of its own */
    int landlock_abi;         /* 0: no Landlock */
    char describe[160];       /* "user+mount+pid+net+ipc namespaces, Landlock ABI 7, seccomp" */
    char why_not[640];        /* when !usable, or what was given up and why */
} kbv_sandbox_mode;

/* Probes on first use: KBV_SANDBOX=auto (default) takes the strongest that
 * works; =namespaces or =landlock insist on one; =off turns confinement off. */
const kbv_sandbox_mode *kbv_sandbox_mode_get(void);
/* KBV_OK when candidates can be confined here; else a clear error. */
kbv_status kbv_sandbox_require(void);

typedef struct kbv_spawn {
    const char *path;          /* the program, absolute, visible through the policy */
    char *const *argv;
    char *const *envp;
    const kbv_policy *policy;  /* finished (kbv_policy_finish) */
    const char *cwd;           /* absolute, visible through the policy */
    const int *fds;            /* the child's descriptor i is the parent's fds[i] */
    int n_fds;
    bool own_group;            /* a process group of its own, for killing it whole */
    bool die_with_parent;      /* SIGKILL when the thread that spawned it exits */
    const kbv_bpf *filter;     /* installed just before exec; NULL: none */
    rlim_t limit_as;           /* address space, bytes (0: unchanged) */
    rlim_t limit_fsize;        /* largest file it may write, bytes (0: unchanged) */
    rlim_t limit_nofile;       /* open files (0: unchanged) */
    int nice;                  /* added to its CPU nice value (0: unchanged) */
} kbv_spawn;

/* Starts s->path confined; *pid is its process id (and group, with
 * own_group) as this process sees it. */
kbv_status kbv_sandbox_spawn(const kbv_spawn *s, pid_t *pid);

/* A spawn begun and not yet finished: the child confines itself and execs
 * while this process goes on. */
typedef struct kbv_spawn_pending {
    pid_t pid;
    int report_fd;             /* closes when the child exec'd; a report when a step failed */
    char root[PATH_MAX];       /* the jail's staging directory, removed at the end */
    char path[PATH_MAX];       /* the program, for messages */
} kbv_spawn_pending;

/* kbv_sandbox_spawn in two halves: begin clones the child and returns at
 * once (nothing of s is needed after it); end waits until the child exec'd
 * and gives its pid, or the step that failed (the child is reaped then).
 * Every begun spawn is ended, also one whose child was killed meanwhile. */
kbv_status kbv_sandbox_spawn_begin(const kbv_spawn *s, kbv_spawn_pending *p);
kbv_status kbv_sandbox_spawn_end(kbv_spawn_pending *p, pid_t *pid);

#endif
