#include "runner/runner_sandbox.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <ucontext.h>

#include "sandbox/filter.h"

static volatile sig_atomic_t denied_count;
static volatile sig_atomic_t denied_first = -1;
static int filters_on;

/* SIGSYS from SECCOMP_RET_TRAP: the call did not run. Count it and make it
 * return -EPERM, so that the candidate goes on and the evaluator, not the
 * candidate, decides what it means. */
static void on_sigsys(int sig, siginfo_t *si, void *uc_)
{
    (void)sig;
    if (denied_first < 0)
        denied_first = si->si_syscall;
    if (denied_count < 1000000)
        denied_count++;
    ucontext_t *uc = uc_;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#else
#error "kbv-runner: set the return register of a trapped system call for this architecture"
#endif
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

kbv_status runner_sandbox_after_load(void)
{
    if (!filters_on)
        return KBV_OK;
    KBV_TRY(kbv_filter_runner_install(KBV_FILTER_RUN));
    return KBV_OK;
}

int runner_sandbox_denied(int *first_syscall)
{
    *first_syscall = denied_first;
    return denied_count;
}
