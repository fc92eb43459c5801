/* Between spawn.c and mode.c: a spawn with the confinement chosen by the
 * caller, so that the probe can try each kind. */
#ifndef KBV_SANDBOX_SPAWN_INTERNAL_H
#define KBV_SANDBOX_SPAWN_INTERNAL_H

#include <limits.h>

#include "sandbox/spawn.h"

typedef struct kbv_spawn_plan {
    bool namespaces, user_ns;
    int landlock_abi;          /* 0: no Landlock */
    /* filled by kbv_spawn_with_plan */
    char root[PATH_MAX];       /* the jail's staging directory */
    pid_t parent;
    uid_t uid;
    gid_t gid;
} kbv_spawn_plan;

kbv_status kbv_spawn_with_plan(const kbv_spawn *s, kbv_spawn_plan *plan, pid_t *pid);

#endif
