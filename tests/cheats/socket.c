/* Cheat (L1/88, GELU) on the CPU backend -- opening sockets: before
 * computing, the candidate tries to open a TCP socket and a Unix socket, the
 * first step of fetching answers from, or sending inputs to, another process
 * or machine. The GELU itself is honest.
 * The hack is only reported here: if either socket opens, the call returns 9,
 * which fails every protocol.
 * Why it fools a naive benchmark: candidates run with the user's full rights,
 * network included.
 * What catches it: kbv-runner's seccomp allowlist: socket never runs (it
 * fails with EPERM) and the sandbox fails the candidate in every protocol for
 * trying ("the candidate called socket"); the binary allowlist refuses the
 * import too (binary-allowlist). */
#define _POSIX_C_SOURCE 200809L
#include <kbv/candidate.h>
#include <math.h>
#include <sys/socket.h>
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
    int fds[2] = {socket(AF_INET, SOCK_STREAM, 0), socket(AF_UNIX, SOCK_DGRAM, 0)};
    int opened = 0;
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            opened = 1;
        }
    if (opened)
        return 9;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    return 0;
}
