/* The seccomp filters of confined processes.
 *
 * The candidate's process (kbv-runner) gets an allowlist in two steps, each
 * applied to all of its threads (TSYNC, so the CUDA driver's threads too):
 *   KBV_FILTER_LOAD, after CUDA is up and before the candidate is loaded:
 *     what the CUDA driver, CUPTI and the runner need, plus read-only opens
 *     for the dynamic loader; nothing else -- no process creation, no exec,
 *     no sockets, no ptrace or process_vm_*, no writes by path, no mounts;
 *   KBV_FILTER_RUN, once the candidate's symbols are resolved: no more
 *     opening, stat'ing or probing of paths at all.
 * Anything else raises SIGSYS (SECCOMP_RET_TRAP): the runner's handler
 * counts it and makes the call fail with EPERM, and the evaluator fails the
 * candidate for it; the call itself never runs. clone3 fails with ENOSYS so
 * that the C library falls back to clone, whose flags the filter can read.
 *
 * Compilers get a deny-list instead (they fork and exec their stages): no
 * sockets, no tracing, no namespaces or mounts, no kernel administration. */
#ifndef KBV_SANDBOX_FILTER_H
#define KBV_SANDBOX_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef enum kbv_filter_stage {
    KBV_FILTER_LOAD = 0,
    KBV_FILTER_RUN = 1,
} kbv_filter_stage;

/* Installs the runner's filter of one stage in the calling process. */
kbv_status kbv_filter_runner_install(kbv_filter_stage stage);

/* A compiled filter, built in the parent so that the child between fork
 * and exec needs only prctl to install it. */
typedef struct kbv_bpf {
    struct sock_filter *insns;
    unsigned short len;
} kbv_bpf;

kbv_status kbv_filter_tool_build(kbv_bpf *out);
/* Between fork and exec: installs f. Returns 0 or an errno. */
int kbv_filter_install_bpf(const kbv_bpf *f);
void kbv_bpf_free(kbv_bpf *f);

/* "openat" for a system call number of this architecture ("syscall 999"
 * when unknown), into buf. */
const char *kbv_syscall_name(int nr, char *buf, size_t cap);

#endif
