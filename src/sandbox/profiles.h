/* The policies of kbv's two confined programs, and the paths no confined
 * process may see even where a system tree would expose them.
 *
 *   runner    the system's libraries, the devices (GPU nodes on GPU runs),
 *             the runner binary, its private directory holding a copy of
 *             the candidate's shared object, /proc of its own PID
 *             namespace, /sys read-only, a private /dev/shm;
 *   compiler  the system's programs and headers, the CUDA toolkit, the
 *             directory holding kbv/candidate.h, a build directory holding
 *             a copy of the candidate's source (the only writable place),
 *             /dev/null and /dev/urandom, a private /tmp.
 * Everything kbv owns -- the caches, the results, the run directories, the
 * user's home -- stays out of both. */
#ifndef KBV_SANDBOX_PROFILES_H
#define KBV_SANDBOX_PROFILES_H

#include <stdbool.h>

#include "core/status.h"
#include "sandbox/policy.h"

/* Adds path to the paths hidden from every confined process (kept for the
 * life of the process). $HOME is added without asking; the compile cache
 * registers kbv's cache directory when it first finds it. */
kbv_status kbv_sandbox_hide_path(const char *path);

kbv_status kbv_profile_runner(kbv_policy *p, const char *runner, const char *private_dir, bool gpu);
/* build_dir: NULL for a compiler that builds nothing (--version). */
kbv_status kbv_profile_compiler(kbv_policy *p, const char *compiler, const char *include_dir,
                                const char *build_dir);

#endif
