// Cheat (L1/88, GELU) -- escaping the process: before computing, the candidate
// tries to start a shell (system(), which forks and execs /bin/sh) and to open
// a socket, the first steps of handing the work, or the inputs, to something
// outside the evaluated process. The GELU itself is honest.
// The hack: a helper process or a connection can do work that nobody times,
// fetch answers, or leak inputs; here success is only reported: if either
// attempt succeeds the candidate returns 9, which fails every protocol.
// Why it fools a naive benchmark: a benchmark that runs candidates in its own
// process with full rights lets them do anything the user can.
// What catches it: kbv-runner's seccomp allowlist: the clone of a process
// never runs. system() blocks every signal around it, so the filter's SIGSYS
// kills the process instead of being handled, and the sandbox fails the
// candidate in every protocol ("the candidate made a system call the sandbox
// forbids (killed by SIGSYS ...)"); the binary allowlist refuses the imports
// too (binary-allowlist).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_range(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    /* system() returns the shell's exit status (0 for "true") when the fork
     * and exec work, -1 or 127 when they do not */
    if (system("true") == 0)
        return 9;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
        close(fd);
        return 9;
    }
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    if (blocks > 0)
        gelu_range<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
            (const float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
