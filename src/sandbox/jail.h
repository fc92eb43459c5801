/* The namespace jail: in a process freshly cloned into new mount (and PID,
 * network, IPC, optionally user) namespaces, builds a root that holds only
 * what the policy lists -- each path bind-mounted at its own path, read-only
 * unless the policy says otherwise -- plus a /proc of the new PID namespace,
 * a /dev of bound device nodes and empty private tmpfs where asked, then
 * pivots into it and detaches the old root, so nothing else of the machine
 * (the evaluator's cache, results, home, /proc of other processes) can be
 * named from inside.
 *
 * Runs between fork and exec: raw system calls only, no allocation; a
 * failure is returned as the step and errno for the parent to describe. */
#ifndef KBV_SANDBOX_JAIL_H
#define KBV_SANDBOX_JAIL_H

#include <stdbool.h>
#include <sys/types.h>

#include "sandbox/policy.h"

typedef enum kbv_jail_step {
    KBV_JAIL_OK = 0,
    KBV_JAIL_ID_MAP,          /* writing /proc/self/{setgroups,uid_map,gid_map} */
    KBV_JAIL_PRIVATE,         /* making the old mounts private */
    KBV_JAIL_ROOT,            /* mounting the new root's tmpfs */
    KBV_JAIL_ENTRY,           /* binding or creating policy entry `index` */
    KBV_JAIL_PROC,            /* mounting /proc */
    KBV_JAIL_SYS,             /* binding /sys */
    KBV_JAIL_DEV,             /* the /dev tmpfs and its links */
    KBV_JAIL_TMP,             /* /tmp or /dev/shm */
    KBV_JAIL_PIVOT,           /* pivot_root and detaching the old root */
    KBV_JAIL_READONLY,        /* remounting the new root read-only */
    KBV_JAIL_STEP_COUNT
} kbv_jail_step;

typedef struct kbv_jail_failure {
    int step;                 /* kbv_jail_step */
    int err;                  /* errno */
    int index;                /* KBV_JAIL_ENTRY: the policy entry */
} kbv_jail_failure;

/* "binding a policy path", "mounting /proc", ... */
const char *kbv_jail_step_name(kbv_jail_step s);

/* In the cloned child. root: an empty directory (outside view) to build the
 * new root on; user_ns: the process is in a new user namespace whose ID maps
 * it must write (the outer uid and gid map to root inside). Returns false
 * with *f filled on failure. */
bool kbv_jail_enter(const kbv_policy *p, const char *root, bool user_ns, uid_t outer_uid,
                    gid_t outer_gid, kbv_jail_failure *f);

#endif
