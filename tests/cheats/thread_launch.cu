// Cheat (L1/88, GELU) -- work deferred to a thread: kbv_forward hands the job
// to a helper thread it keeps between calls and returns as soon as the helper
// has enqueued the kernel, which it does on the legacy default stream.
// The hack: the call returns having launched nothing on env->stream, so the
// harness's events see an empty stream; the kernel, launched from another
// host thread, runs beside them and is done before the outputs are read (the
// runner synchronises the device).
// Why it fools a naive benchmark: the timed call is a hand-off; the outputs
// are right.
// What catches it: the binary allowlist (pthread_create and the other thread
// calls are imported: binary-allowlist), and behind it the speed-of-light
// bound (below-sol) and the CUPTI-traced pass (trace-foreign-stream).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <pthread.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_range(const float *__restrict__ x, float *__restrict__ y, long long begin,
                           long long end)
{
    for (long long i = begin + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < end;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
}

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool started, job, enqueued;
    int device;
    const float *x;
    float *y;
    long long n;
    unsigned blocks;
    cudaError_t err;
} w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&w.lock);
    cudaSetDevice(w.device);
    for (;;) {
        while (!w.job)
            pthread_cond_wait(&w.cv, &w.lock);
        w.job = false;
        gelu_range<<<w.blocks, 256, 0, 0>>>(w.x, w.y, 0, w.n);
        w.err = cudaGetLastError();
        w.enqueued = true;
        pthread_cond_broadcast(&w.cv);
    }
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
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    pthread_mutex_lock(&w.lock);
    if (!w.started) {
        w.device = env->device;
        pthread_t th;
        if (pthread_create(&th, NULL, helper, NULL) != 0) {
            pthread_mutex_unlock(&w.lock);
            return 9;
        }
        pthread_detach(th);
        w.started = true;
    }
    w.x = (const float *)inputs[0].data;
    w.y = (float *)outputs[0].data;
    w.n = n;
    w.blocks = (unsigned)blocks;
    w.enqueued = false;
    w.job = true;
    pthread_cond_broadcast(&w.cv);
    while (!w.enqueued)
        pthread_cond_wait(&w.cv, &w.lock);
    cudaError_t err = w.err;
    pthread_mutex_unlock(&w.lock);
    return err == cudaSuccess ? 0 : 2;
}
