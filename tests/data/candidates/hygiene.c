/* Test candidate: reports, as its return value, the first way its process
 * is less confined than the runner promises (0 when it is confined). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <kbv/candidate.h>

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)inputs, (void)n_inputs, (void)params, (void)n_params;
    (void)outputs, (void)n_outputs;
    if (getenv("KBV_TEST_SECRET"))
        return 10;  /* the evaluator's environment leaked */
    if (!getenv("PATH"))
        return 11;  /* PATH is kept on purpose */
    for (int fd = 4; fd < 256; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            return 12;  /* a descriptor beyond the protocol socket */
    struct rlimit rl;
    if (getrlimit(RLIMIT_CORE, &rl) != 0 || rl.rlim_cur != 0)
        return 13;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max > 256)
        return 14;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || !strstr(cwd, "/kbv-run-"))
        return 15;  /* not in its private directory */
    if (getpgrp() != getpid())
        return 16;  /* not the leader of its own process group */
    return 0;
}
