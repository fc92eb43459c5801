/* Landlock: the kernel's unprivileged file-system access control, applied
 * from the same policy as the jail. Where namespaces are not available
 * (unprivileged user namespaces disabled, as on some distributions) it is
 * the file-system confinement; inside the jail it is a second wall.
 * Also, from ABI 4 on, no TCP bind or connect, and from ABI 6 on, no signals
 * or abstract Unix sockets to processes outside the sandbox.
 *
 * kbv_landlock_apply runs between fork and exec: raw system calls only. */
#ifndef KBV_SANDBOX_LANDLOCK_H
#define KBV_SANDBOX_LANDLOCK_H

#include <stdbool.h>

#include "sandbox/policy.h"

/* The kernel's Landlock ABI version, 0 when Landlock is not available. */
int kbv_landlock_abi(void);

/* Restricts the calling process (and what it executes) to the policy's
 * paths; in_jail: the process is in the jail, whose private /tmp and
 * /dev/shm it may write. Sets PR_SET_NO_NEW_PRIVS. Returns 0, or the errno
 * of the step that failed with *failed_index the policy entry (-1: none). */
int kbv_landlock_apply(const kbv_policy *p, int abi, bool in_jail, int *failed_index);

#endif
