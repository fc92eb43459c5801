/* Which confinement this machine allows: tried once per process by starting
 * /bin/true in each kind, strongest first. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/landlock.h"
#include "sandbox/spawn_internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static kbv_sandbox_mode mode;

/* Starts `true` confined as plan says; "" on success, else why not. */
static void try_plan(kbv_spawn_plan *plan, char *why, size_t cap)
{
    why[0] = '\0';
    kbv_policy p = {.proc = true};
    const char *prog = access("/usr/bin/true", X_OK) == 0 ? "/usr/bin/true" : "/bin/true";
    char *const argv[] = {(char *)prog, NULL};
    char *const envp[] = {NULL};
    pid_t pid = -1;
    kbv_status st = kbv_policy_add_system(&p);
    if (st == KBV_OK)
        st = kbv_policy_add_devices(&p, false);
    if (st == KBV_OK) {
        kbv_policy_finish(&p);
        kbv_spawn s = {.path = prog, .argv = argv, .envp = envp, .policy = &p, .cwd = "/"};
        st = kbv_spawn_with_plan(&s, plan, &pid);
    }
    if (st != KBV_OK) {
        const char *msg = kbv_last_error();
        const char *colon = strstr(msg, "sandbox: ");
        snprintf(why, cap, "%s", colon ? colon + 9 : msg);
        kbv_clear_error();
    } else {
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            snprintf(why, cap, "%s did not run inside it (wait status 0x%x)", prog, ws);
    }
    kbv_policy_free(&p);
}

static void describe(void)
{
    char ll[32] = "";
    if (mode.landlock_abi > 0)
        snprintf(ll, sizeof ll, "Landlock ABI %d, ", mode.landlock_abi);
    if (mode.namespaces)
        snprintf(mode.describe, sizeof mode.describe, "%smount+pid+net+ipc namespaces, %sseccomp",
                 mode.user_ns ? "user+" : "", ll);
    else
        snprintf(mode.describe, sizeof mode.describe, "%sseccomp", ll);
}

static void probe(void)
{
    const char *want = getenv("KBV_SANDBOX");
    if (!want || !*want)
        want = "auto";
    if (!strcmp(want, "off")) {
        mode.off = true;
        snprintf(mode.describe, sizeof mode.describe, "off");
        snprintf(mode.why_not, sizeof mode.why_not,
                 "KBV_SANDBOX=off: candidates and compilers run unconfined");
        return;
    }
    bool ns_wanted = strcmp(want, "landlock") != 0;
    bool ll_wanted = strcmp(want, "namespaces") != 0;
    if (strcmp(want, "auto") && strcmp(want, "namespaces") && strcmp(want, "landlock")) {
        snprintf(mode.why_not, sizeof mode.why_not,
                 "KBV_SANDBOX=%.32s: expected auto, namespaces, landlock or off", want);
        return;
    }
    int abi = ll_wanted ? kbv_landlock_abi() : 0;
    char why_user[160] = "", why_root[160] = "", why_ll[160] = "";
    if (ns_wanted) {
        kbv_spawn_plan plan = {.namespaces = true, .user_ns = true, .landlock_abi = abi};
        try_plan(&plan, why_user, sizeof why_user);
        if (!why_user[0]) {
            mode.namespaces = mode.user_ns = true;
        } else if (geteuid() == 0) {
            /* root without user namespaces (a kernel that forbids them) */
            kbv_spawn_plan root = {.namespaces = true, .landlock_abi = abi};
            try_plan(&root, why_root, sizeof why_root);
            mode.namespaces = !why_root[0];
        }
    }
    if (!mode.namespaces && abi > 0) {
        kbv_spawn_plan plan = {.landlock_abi = abi};
        try_plan(&plan, why_ll, sizeof why_ll);
        if (why_ll[0])
            abi = 0;
    }
    mode.landlock_abi = abi;
    mode.usable = mode.namespaces || abi > 0;
    describe();
    if (!mode.usable) {
        snprintf(mode.why_not, sizeof mode.why_not,
                 "kbv cannot confine candidates on this machine (namespaces: %s; Landlock: %s); "
                 "allow unprivileged user namespaces, or use a kernel with Landlock (5.13+), or "
                 "set KBV_SANDBOX=off to run only candidates you trust",
                 !ns_wanted ? "not tried" : why_root[0] ? why_root : why_user,
                 !ll_wanted ? "not tried" : why_ll[0] ? why_ll : "not in this kernel");
    } else if (ns_wanted && !mode.namespaces) {
        snprintf(mode.why_not, sizeof mode.why_not, "no namespaces (%s): Landlock alone confines "
                 "the file system", why_user);
    }
}

const kbv_sandbox_mode *kbv_sandbox_mode_get(void)
{
    pthread_once(&once, probe);
    return &mode;
}

kbv_status kbv_sandbox_require(void)
{
    const kbv_sandbox_mode *m = kbv_sandbox_mode_get();
    if (m->off || m->usable)
        return KBV_OK;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "%s", m->why_not);
}
