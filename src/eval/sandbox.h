/* Confinement of the candidate process (kbv-runner).
 *
 * Three stages, in the order the runner's life goes through them:
 * 1. kbv_sandbox_private_dir, in the evaluator: a fresh empty directory the
 *    runner works in, removed with everything in it by kbv_sandbox_remove_dir.
 * 2. kbv_sandbox_pre_exec, in the forked child before exec: resource limits,
 *    death with the parent, the private directory as working directory.
 * 3. kbv_sandbox_seccomp, in the runner after device setup and before the
 *    candidate is loaded: a deny-list of process, tracing and network calls. */
#ifndef KBV_SANDBOX_H
#define KBV_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "core/status.h"

#define KBV_SANDBOX_NOFILE 256

/* Creates <$TMPDIR or /tmp>/kbv-run-XXXXXX (mode 0700) into buf. */
kbv_status kbv_sandbox_private_dir(char *buf, size_t cap);

/* Removes path and everything below it, never following symbolic links.
 * A missing path is not an error. */
kbv_status kbv_sandbox_remove_dir(const char *path);

/* For the child between fork and exec: uses only async-signal-safe calls.
 * No core dumps, at most KBV_SANDBOX_NOFILE descriptors (never RLIMIT_AS:
 * CUDA reserves huge virtual ranges; never RLIMIT_NPROC: it counts every
 * process of the user, which breaks root CI), SIGKILL when the parent dies,
 * and dir as working directory. Returns 0, or the errno of the step that
 * failed (ESRCH when the parent is already gone). */
int kbv_sandbox_pre_exec(pid_t parent, const char *dir);

/* Installs the seccomp deny-list in the calling process: fork, vfork,
 * execve, execveat, ptrace, process_vm_readv/writev, socket, socketpair,
 * connect, bind, listen, accept, accept4 and clone without CLONE_THREAD
 * fail with EPERM; clone3 fails with ENOSYS, so the C library falls back to
 * clone, whose flags the filter can see. Threads stay possible. */
kbv_status kbv_sandbox_seccomp(void);

#endif
