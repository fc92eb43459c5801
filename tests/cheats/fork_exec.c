/* Cheat (L1/88, GELU) on the CPU backend -- escaping the process: before
 * computing, the candidate tries to fork a helper and to exec a program, the
 * first steps of handing work or inputs to something nobody times or watches.
 * The GELU itself is honest.
 * The hack is only reported here: if the fork works, the child exits at once
 * and the call returns 9; if the exec works, the runner is replaced by
 * /bin/true and the sample crashes. Either fails every protocol.
 * Why it fools a naive benchmark: candidates run with the user's full rights.
 * What catches it: kbv-runner's seccomp allowlist: fork (a clone of a
 * process) and execve never run (they fail with EPERM) and the sandbox fails
 * the candidate in every protocol for trying ("the candidate called clone");
 * the binary allowlist refuses the imports too (binary-allowlist). */
#define _POSIX_C_SOURCE 200809L
#include <kbv/candidate.h>
#include <math.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return 9;
    }
    char *const argv[] = {"/bin/true", NULL};
    char *const envp[] = {NULL};
    execve("/bin/true", argv, envp);
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    return 0;
}
