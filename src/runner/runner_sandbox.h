/* The runner's own part of the sandbox: the seccomp allowlist in its two
 * stages (sandbox/filter.h) and the SIGSYS handler that counts forbidden
 * calls, makes them fail with EPERM, and lets every reply report them. The
 * rest of the confinement (jail, Landlock, no privileges) was applied
 * before the runner was executed. */
#ifndef KBV_RUNNER_SANDBOX_H
#define KBV_RUNNER_SANDBOX_H

#include "core/status.h"

/* After the device is set up, before the candidate is loaded: the evaluator
 * cannot be inspected through this process (not dumpable), and the load
 * stage's filter is on. KBV_SANDBOX=off leaves the filters off. */
kbv_status runner_sandbox_before_load(void);
/* Once the candidate's symbols are resolved: no paths at all from now on.
 * vendor_libs: the vendor libraries made ready in the load stage
 * (runner_vendor.h); the opens by which they look for their own files from
 * now on (core/vendor_libs.h, "probes") are answered ENOENT, uncounted, and
 * nothing is opened. */
kbv_status runner_sandbox_after_load(unsigned vendor_libs);
/* Forbidden calls so far, the first one's number and (when it named one)
 * its path, cut to cap - 1 bytes. */
int runner_sandbox_denied(int *first_syscall, char *first_path, size_t cap);

#endif
