#include "sandbox/profiles.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HIDDEN 64
#define COMPILER_TMP_BYTES (256u << 20)

static pthread_mutex_t hidden_lock = PTHREAD_MUTEX_INITIALIZER;
static char hidden[MAX_HIDDEN][PATH_MAX];
static int n_hidden;

kbv_status kbv_sandbox_hide_path(const char *path)
{
    char real[PATH_MAX];
    if (!path || !*path || !realpath(path, real))
        return KBV_OK;   /* what does not exist cannot be seen */
    kbv_status st = KBV_OK;
    pthread_mutex_lock(&hidden_lock);
    bool known = false;
    for (int i = 0; i < n_hidden && !known; i++)
        known = !strcmp(hidden[i], real);
    if (!known) {
        if (n_hidden == MAX_HIDDEN)
            st = kbv_fail(KBV_ERR_INVALID, "more than %d paths to hide from candidates", MAX_HIDDEN);
        else
            snprintf(hidden[n_hidden++], PATH_MAX, "%s", real);
    }
    pthread_mutex_unlock(&hidden_lock);
    return st;
}

static kbv_status add_hidden(kbv_policy *p)
{
    const char *home = getenv("HOME");
    if (home && *home)
        KBV_TRY(kbv_sandbox_hide_path(home));
    kbv_status st = KBV_OK;
    pthread_mutex_lock(&hidden_lock);
    for (int i = 0; i < n_hidden && st == KBV_OK; i++)
        st = kbv_policy_hide(p, hidden[i]);
    pthread_mutex_unlock(&hidden_lock);
    return st;
}

kbv_status kbv_profile_runner(kbv_policy *p, const char *runner, const char *private_dir, bool gpu)
{
    p->proc = true;
    p->proc_task_writable = true;   /* the driver names its threads */
    p->sys = true;        /* the driver reads CPU, NUMA and PCI topology at init */
    p->dev_shm = true;
    KBV_TRY(kbv_policy_add_system(p));
    KBV_TRY(kbv_policy_add_devices(p, gpu));
    /* Debian's BLAS and LAPACK (PyTorch's, for KernelBench-format candidates)
     * are links through /etc/alternatives */
    KBV_TRY(kbv_policy_add_if_present(p, "/etc/alternatives", KBV_ACCESS_READ));
    KBV_TRY(kbv_policy_add(p, runner, KBV_ACCESS_READ | KBV_ACCESS_EXEC));
    KBV_TRY(kbv_policy_add(p, private_dir, KBV_ACCESS_READ | KBV_ACCESS_EXEC));
    KBV_TRY(add_hidden(p));
    kbv_policy_finish(p);
    return KBV_OK;
}

kbv_status kbv_profile_compiler(kbv_policy *p, const char *compiler, const char *include_dir,
                                const char *build_dir)
{
    const unsigned ro = KBV_ACCESS_READ | KBV_ACCESS_EXEC;
    p->proc = true;
    p->tmp_bytes = COMPILER_TMP_BYTES;
    KBV_TRY(kbv_policy_add_system(p));
    /* Debian's cc and c++ are links through /etc/alternatives */
    KBV_TRY(kbv_policy_add_if_present(p, "/etc/alternatives", KBV_ACCESS_READ));
    KBV_TRY(kbv_policy_add_if_present(p, "/dev/null", KBV_ACCESS_DEVICE));
    KBV_TRY(kbv_policy_add_if_present(p, "/dev/urandom", KBV_ACCESS_DEVICE));
    /* a toolkit's whole tree when the compiler is in its bin/ (nvcc finds
     * its stages and headers from bin/..), else the compiler alone */
    char real[PATH_MAX];
    if (compiler[0] == '/' && realpath(compiler, real)) {
        char *slash = strrchr(real, '/');
        bool in_bin = slash && slash - real >= 4 && !strncmp(slash - 4, "/bin", 4);
        if (in_bin) {
            slash[-4] = '\0';
            if (!real[0])
                snprintf(real, sizeof real, "/");
        }
        KBV_TRY(kbv_policy_add_if_present(p, in_bin ? real : compiler, ro));
    }
    KBV_TRY(kbv_policy_add_if_present(p, include_dir, KBV_ACCESS_READ));
    if (build_dir)
        KBV_TRY(kbv_policy_add(p, build_dir, KBV_ACCESS_READ | KBV_ACCESS_WRITE));
    KBV_TRY(add_hidden(p));
    kbv_policy_finish(p);
    return KBV_OK;
}
