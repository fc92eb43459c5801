/* Test candidate: tries what the sandbox forbids (fork, a socket, exec). Returns 0 when
 * each attempt fails with EPERM and a thread can still be started; else a
 * code saying which attempt got through. */
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kbv/candidate.h>

static void *nothing(void *arg)
{
    return arg;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)inputs, (void)n_inputs, (void)params, (void)n_params;
    (void)outputs, (void)n_outputs;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return 20;
    }
    if (errno != EPERM)
        return 21;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
        close(fd);
        return 22;
    }
    char *const argv[] = {"/bin/true", NULL};
    char *const envp[] = {NULL};
    execve("/bin/true", argv, envp);
    if (errno != EPERM)
        return 23;
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0)
        return 24;
    pthread_join(t, NULL);
    return 0;
}
