// Cheat (L1/88, GELU) -- a late write: the GELU is honest, but each call
// leaves a helper thread behind that waits until the harness stream is idle
// (the call has been timed and synchronised), sleeps 2 ms, and then launches
// one more kernel on that stream that flips the lowest bit of y[0].
// The hack: work enqueued after the call returned lands while, or after, the
// caller reads the outputs; a real cheat would finish its work this way. The
// change here is one unit in the last place, small enough to pass any
// tolerance, so only the timing of the write gives it away.
// Why it fools a naive benchmark: the outputs are read once, right after the
// call, and are right at that moment.
// What catches it: strict hashes the outputs as soon as the call returns and
// again after the comparison and a 3 ms pause; a change is a late write
// ("changed after the call returned (late write)"). The thread also needs
// pthread_create (binary-allowlist), and the CUPTI trace sees a kernel outside
// every call window.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <time.h>

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

__global__ void nudge(float *y) { y[0] = __uint_as_float(__float_as_uint(y[0]) ^ 1u); }

struct late_job {
    int device;
    cudaStream_t stream;
    float *y;
};

static void *late(void *arg)
{
    struct late_job job = *(struct late_job *)arg;
    free(arg);
    cudaSetDevice(job.device);
    while (cudaStreamQuery(job.stream) == cudaErrorNotReady) {
        struct timespec t = {0, 20000};
        nanosleep(&t, NULL);
    }
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
    nudge<<<1, 1, 0, job.stream>>>(job.y);
    return NULL;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    if (n == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    gelu_range<<<(unsigned)blocks, 256, 0, s>>>((const float *)inputs[0].data,
                                                (float *)outputs[0].data, n);
    struct late_job *job = (struct late_job *)malloc(sizeof *job);
    if (job) {
        job->device = env->device;
        job->stream = s;
        job->y = (float *)outputs[0].data;
        pthread_t th;
        if (pthread_create(&th, NULL, late, job) == 0)
            pthread_detach(th);
        else
            free(job);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
