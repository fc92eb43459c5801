#include "runner/runner_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/vendor_libs.h"
#include "sandbox/filter.h"

static volatile sig_atomic_t denied_count;
static volatile sig_atomic_t denied_first = -1;
static char denied_path[64];   /* the first denied call's path, when it named one */
static int filters_on;

/* Whether path is "/proc/self/task/<tid>/comm" (or thread-self/comm):
 * where the CUDA driver names a helper thread it starts lazily, after the
 * candidate is loaded. Naming threads is cosmetic, and not the candidate's
 * doing: such an open gets a copy of stdin instead of EPERM (the evaluator
 * opens /dev/null there for writing too), and is not counted. */
static bool thread_name_path(const char *path)
{
    static const char task[] = "/proc/self/task/", self[] = "/proc/thread-self/comm";
    if (!strcmp(path, self))
        return true;
    if (strncmp(path, task, sizeof task - 1) != 0)
        return false;
    const char *p = path + sizeof task - 1;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return !strcmp(p, "/comm");
}

/* Files the C library reads by itself, lazily: the CPU count, when malloc
 * makes an arena for a new thread (the driver's threads included) or on
 * sysconf. Not the candidate's doing, and it copes without them: ENOENT,
 * not counted. */
static bool libc_probe_path(const char *path)
{
    static const char *const probes[] = {"/sys/devices/system/cpu/online",
                                         "/sys/devices/system/cpu/possible", "/proc/stat"};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        if (!strcmp(path, probes[i]))
            return true;
    return false;
}

/* The file-name prefixes the allowed vendor libraries probe for (read in
 * the handler: set before the run stage's filter, never changed after). */
#define MAX_PROBES 16
static const char *vendor_probes[MAX_PROBES];

/* Whether path's file name starts with one of vendor_probes: a vendor
 * library looking, through the loader, for a file of its own that was
 * loaded in the load stage under another of its names (or that does not
 * exist). Refused without a count: it is not the candidate's doing, and
 * "no such file" sends the loader to the name it already has. The loader's
 * own cache, which it opens again for such a search, is answered alike
 * (without it the loader searches its default directories, where the
 * probes answer the same). */
static bool vendor_probe_path(const char *path)
{
    if (!vendor_probes[0])
        return false;
    static const char loader_cache[] = "/etc/ld.so.cache";
    const char *c = loader_cache, *q = path;
    while (*c && *q == *c)
        c++, q++;
    if (!*c && !*q)
        return true;
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/')
            base = p + 1;
    for (int i = 0; i < MAX_PROBES && vendor_probes[i]; i++) {
        const char *a = base, *b = vendor_probes[i];
        while (*b && *a == *b)
            a++, b++;
        if (!*b)
            return true;
    }
    return false;
}

/* SIGSYS from SECCOMP_RET_TRAP: the call did not run. Count it and make it
 * return -EPERM, so that the candidate goes on and the evaluator, not the
 * candidate, decides what it means. */
static void on_sigsys(int sig, siginfo_t *si, void *uc_)
{
    (void)sig;
    ucontext_t *uc = uc_;
#if defined(__x86_64__)
    long long *ret = &uc->uc_mcontext.gregs[REG_RAX];
    const char *path = si->si_syscall == SYS_openat ? (const char *)uc->uc_mcontext.gregs[REG_RSI]
                       : si->si_syscall == SYS_open ? (const char *)uc->uc_mcontext.gregs[REG_RDI]
                                                    : NULL;
#elif defined(__aarch64__)
    long long *ret = (long long *)&uc->uc_mcontext.regs[0];
    const char *path = si->si_syscall == SYS_openat ? (const char *)uc->uc_mcontext.regs[1] : NULL;
#else
#error "kbv-runner: set the return register of a trapped system call for this architecture"
#endif
    if (path && thread_name_path(path)) {
        long fd = syscall(SYS_fcntl, STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
        *ret = fd >= 0 ? fd : -EPERM;
        return;
    }
    if (path && (libc_probe_path(path) || vendor_probe_path(path))) {
        *ret = -ENOENT;
        return;
    }
    if (denied_first < 0) {
        denied_first = si->si_syscall;
        for (size_t i = 0; path && i < sizeof denied_path - 1 && path[i]; i++)
            denied_path[i] = path[i];
    }
    if (denied_count < 1000000)
        denied_count++;
    *ret = -EPERM;
}

kbv_status runner_sandbox_before_load(void)
{
    const char *mode = getenv("KBV_SANDBOX");
    if (mode && !strcmp(mode, "off"))
        return KBV_OK;
    /* nobody may read this process's memory through /proc or ptrace */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "sigaction(SIGSYS): %s", strerror(errno));
    KBV_TRY(kbv_filter_runner_install(KBV_FILTER_LOAD));
    filters_on = 1;
    return KBV_OK;
}

kbv_status runner_sandbox_after_load(unsigned vendor_libs)
{
    if (!filters_on)
        return KBV_OK;
    int n = 0;
    for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
        const kbv_vendor_info *v = kbv_vendor_get((kbv_vendor_lib)l);
        for (int i = 0; (vendor_libs >> l & 1u) && v->probes[i] && n < MAX_PROBES; i++)
            vendor_probes[n++] = v->probes[i];
    }
    KBV_TRY(kbv_filter_runner_install(KBV_FILTER_RUN));
    return KBV_OK;
}

int runner_sandbox_denied(int *first_syscall, char *first_path, size_t cap)
{
    *first_syscall = denied_first;
    if (cap)
        snprintf(first_path, cap, "%s", denied_path);
    return denied_count;
}
